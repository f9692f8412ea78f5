// The gate stage on packed variable-length sequences with the fused
// lower-bound gate, lower_bound * sigmoid(exp(A_log) * (g + dt_bias)), on
// bf16 raw gates; chunks restart at every sequence start.
//
//   kda-translate examples/gate_cumsum_varlen.mlir --kda-to-ptx
//   kda-translate examples/gate_cumsum_varlen.mlir --kda-to-bundle -o varlen.kdab
//   kda-run varlen.kdab --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,1,64,65,300

func.func @gate_cumsum_varlen(%g: tensor<1x?x4x128xbf16>, %a_log: tensor<4xf32>,
                              %dt_bias: tensor<4x128xf32>, %cu_seqlens: tensor<?xi64>)
    -> tensor<1x?x4x128xf32> {
  %G = kda.gate_cumsum %g a_log %a_log dt_bias %dt_bias cu_seqlens %cu_seqlens
      {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<1x?x4x128xbf16>, tensor<4xf32>, tensor<4x128xf32>, tensor<?xi64>)
      -> tensor<1x?x4x128xf32>
  return %G : tensor<1x?x4x128xf32>
}
