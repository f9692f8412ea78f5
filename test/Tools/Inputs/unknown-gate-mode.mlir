// 'bogus' is not a gate mode.
func.func @unknown_gate_mode(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode bogus>}
      : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
