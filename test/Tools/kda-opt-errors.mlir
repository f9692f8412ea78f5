// Errors of kda-opt: each is reported on one line, with the file:line:col of
// the offending IR, and kda-opt exits with a failure instead of crashing.
// (`not` itself fails when the tool dies on a signal; NOCRASH also rules out
// a crash report in the output.)

// RUN: not kda-opt %s.missing 2>&1 | FileCheck %s --check-prefixes=NOCRASH,MISSING
// MISSING: {{^}}cannot open input file '{{.*}}kda-opt-errors.mlir.missing': No such file or directory{{$}}

// RUN: not kda-opt %s --no-such-option 2>&1 | FileCheck %s --check-prefixes=NOCRASH,OPTION
// OPTION: kda-opt{{.*}}: Unknown command line argument '--no-such-option'.

// RUN: not kda-opt %S/Inputs/syntax-error.mlir 2>&1 | FileCheck %s --check-prefixes=NOCRASH,INPUT
// INPUT: {{^}}{{.*}}Inputs{{[/\\]}}syntax-error.mlir:3:12: error: expected ':'{{$}}
// INPUT-NEXT: {{^}}  return %a{{$}}
// INPUT-NEXT: {{^}}           ^{{$}}
// INPUT-NOT: error

// Each chunk below is invalid in its own way; every chunk gets its diagnostic.
// RUN: not kda-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefixes=NOCRASH,CHECK

// NOCRASH-NOT: {{Stack dump|PLEASE submit|LLVM ERROR}}

// A syntax error.
func.func @syntax_error(%a: f32) -> f32 {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:12: error: expected ':'
  return %a
}

// -----

// An unknown value of the gate_mode enum.
func.func @unknown_gate_mode(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+2]]:55: error: expected ::mlir::kda::GateMode to be one of: precomputed, softplus, lower_bound
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:60: error: failed to parse KDA_GateModeAttr parameter 'value'
  %G = kda.gate_cumsum %g {gate_mode = #kda<gate_mode bogus>} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// The enum written as a parameterized attribute is not the syntax of the
// gate_mode attribute (#kda<gate_mode softplus> is).
func.func @gate_mode_wrong_syntax(%g: tensor<?x?x4x64xf32>, %a: tensor<4xf32>) -> tensor<?x?x4x64xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}KDA_GateModeAttr
  %G = kda.gate_cumsum %g a_log %a {gate_mode = #kda.gate_mode<softplus>} : (tensor<?x?x4x64xf32>, tensor<4xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// A kda op whose result shape is not that of its input (a verifier error).
func.func @wrong_result_shape(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x32xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+2]]:8: error: 'kda.gate_cumsum' op result must have the shape of operand 'g' [B, T, HV, K], got 'tensor<?x?x4x32xf32>'
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: note: see current operation:
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x32xf32>
  return %G : tensor<?x?x4x32xf32>
}

// -----

// A kda op on a tile of the wrong rank.
func.func @wrong_rank(%g: tensor<?x4x64xf32>) -> tensor<?x4x64xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: error: 'kda.gate_cumsum' op operand 'g' must have rank 4 [B, T, HV, K], got rank 3
  %G = kda.gate_cumsum %g : (tensor<?x4x64xf32>) -> tensor<?x4x64xf32>
  return %G : tensor<?x4x64xf32>
}

// -----

// An unsupported chunk size.
func.func @bad_chunk_size(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: error: 'kda.gate_cumsum' op attribute 'chunk_size' must be 16, 32 or 64, got 48
  %G = kda.gate_cumsum %g {chunk_size = 48 : i64} : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// A wrong operand type (an ODS constraint).
func.func @integer_gate(%g: tensor<?x?x4x64xi32>) -> tensor<?x?x4x64xf32> {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: error: 'kda.gate_cumsum' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float values, but got 'tensor<?x?x4x64xi32>'
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xi32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// -----

// An op of an unknown dialect.
func.func @unregistered_op(%a: f32) -> f32 {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: error: Dialect `foo' not found for custom op 'foo.bar'
  %b = foo.bar %a : f32
  return %b : f32
}

// -----

// A use of an undefined value.
func.func @undefined_value() -> f32 {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:10: error: use of undeclared SSA value name
  return %nope : f32
}

// -----

// A tile op outside a tile kernel.
func.func @tile_op_outside_kernel() -> index {
  // CHECK: kda-opt-errors.mlir:[[@LINE+1]]:8: error: 'tile.program_id' op is only valid inside a tile kernel (a func.func with the 'tile.kernel' attribute)
  %p = tile.program_id x
  return %p : index
}

// NOCRASH-NOT: {{Stack dump|PLEASE submit|LLVM ERROR}}
