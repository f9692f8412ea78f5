// A kda program that kda-run can check: one kda.gate_cumsum with a
// dynamic batch and sequence length.
func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g {chunk_size = 64 : i64}
      : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
