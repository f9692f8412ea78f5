// The result of kda.gate_cumsum must have the shape of 'g'.
func.func @gate_cumsum_bad_shape(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x32xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x32xf32>
  return %G : tensor<?x?x4x32xf32>
}
