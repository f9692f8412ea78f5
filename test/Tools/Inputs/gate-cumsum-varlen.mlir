// A varlen kda program: packed sequences described by cu_seqlens (B = 1).
func.func @gate_cumsum_varlen(%g: tensor<1x?x4x64xf32>, %cu: tensor<?xi64>) -> tensor<1x?x4x64xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu {chunk_size = 64 : i64}
      : (tensor<1x?x4x64xf32>, tensor<?xi64>) -> tensor<1x?x4x64xf32>
  return %G : tensor<1x?x4x64xf32>
}
