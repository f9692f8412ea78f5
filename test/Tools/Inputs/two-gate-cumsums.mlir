// Two kda ops in one function: more than kda-run can check.
func.func @two_gate_cumsums(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  %H = kda.gate_cumsum %G : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %H : tensor<?x?x4x64xf32>
}
