// The seed kernel's stage of the KDA forward (fla's fused inter-sub-chunk +
// solve_tril): per chunk of 64 tokens and value head, the off-diagonal
// 16x16 blocks of Aqk and Akk, and M = (I + Akk)^-1 from the diagonal
// blocks in Akkd. B x T tokens, H = HV = 4 heads, K = 64, bf16 q/k,
// scale = K^-0.5, merge products at fla's default precision (tf32).
// examples/inter_solve_tile.mlir is the tile kernel this lowers to.
//
//   kda-opt examples/inter_solve.mlir --convert-kda-to-tile --canonicalize --cse
//   kda-translate examples/inter_solve.mlir --kda-to-ptx
//   kda-translate examples/inter_solve.mlir --kda-to-bundle -o inter_solve.kdab
//   kda-run inter_solve.kdab --cpu --batch 2 --seq-len 200 --heads 4 --value-heads 4

func.func @inter_solve(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>,
                       %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                       %Aqk: tensor<?x?x4x64xbf16>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision tf32>}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>
}
