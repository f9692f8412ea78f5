// RUN: kda-opt %s --split-input-file --convert-kda-to-tile -verify-diagnostics

func.func @non_kda_op_in_body(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  // expected-error @+1 {{'arith.addf' op is not supported in a kda function: its body may only hold kda ops}}
  %H = arith.addf %G, %G : tensor<?x?x4x64xf32>
  return %H : tensor<?x?x4x64xf32>
}

// -----

func.func @returns_argument(%g: tensor<?x?x4x64xf32>) -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>) {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  // expected-error @+1 {{returns argument #0 unchanged, which a launch plan cannot express}}
  return %G, %g : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>
}

// -----

func.func @returns_twice(%g: tensor<?x?x4x64xf32>) -> (tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>) {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  // expected-error @+1 {{returns the same value twice}}
  return %G, %G : tensor<?x?x4x64xf32>, tensor<?x?x4x64xf32>
}

// -----

// expected-error @+1 {{kda functions take and return ranked tensors only, got 'f32'}}
func.func @scalar_argument(%g: tensor<?x?x4x64xf32>, %s: f32) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
