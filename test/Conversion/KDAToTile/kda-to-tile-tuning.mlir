// RUN: kda-opt %s --convert-kda-to-tile | FileCheck %s --check-prefix=SHARED
// RUN: kda-opt %s --convert-kda-to-tile=register-layouts=1 | FileCheck %s --check-prefix=REGS
// RUN: kda-opt %s --convert-kda-to-tile="register-layouts=1 block-k=64" | FileCheck %s --check-prefix=BLOCKK

// Each kernel's launch shape comes from the target's kernel tuning, for the
// mapping its tiles will get: the inter_solve kernel tiles K by 32 columns
// on the shared-memory mapping and by 16 on registers (register-layouts);
// block-k, when set, overrides both. On registers its register cap is 168
// instead of 128 (its speculated loads need them); both mappings speculate
// its loads out of the sub-chunk branches.

// SHARED: func.func @inter_solve_inter_solve_0
// SHARED-SAME: tile.max_registers = 128 : i64
// SHARED-SAME: tile.num_threads = 64 : i64
// SHARED-SAME: tile.speculate_loads
// SHARED: tile.load %arg0{{.*}} -> tensor<16x32xbf16>
// REGS: func.func @inter_solve_inter_solve_0
// REGS-SAME: tile.max_registers = 168 : i64
// REGS-SAME: tile.num_threads = 64 : i64
// REGS-SAME: tile.speculate_loads
// REGS: tile.load %arg0{{.*}} -> tensor<16x16xbf16>
// BLOCKK: tile.load %arg0{{.*}} -> tensor<16x64xbf16>

func.func @inter_solve(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>,
                       %G: tensor<1x?x4x128xf32>, %beta: tensor<1x?x4xf32>,
                       %Aqk: tensor<1x?x4x64xbf16>, %Akkd: tensor<1x?x4x16xf32>)
    -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.0883883461 : f32, precision = #kda<precision tf32>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x64xbf16>, tensor<1x?x4x16xf32>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>
}
