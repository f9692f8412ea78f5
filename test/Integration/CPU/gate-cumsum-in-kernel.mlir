// In-kernel gate activations on the CPU build: softplus (with A_log and
// dt_bias as [HV, K]), lower bound with and without A_log (dt_bias as
// [HV * K]), f16 and bf16 raw gates, fixed length and varlen.

// RUN: split-file %s %t
// RUN: kda-translate %t/softplus.mlir --kda-to-bundle --no-cubin -o %t/softplus.kdab
// RUN: kda-translate %t/lower_bound.mlir --kda-to-bundle --no-cubin -o %t/lower_bound.kdab
// RUN: kda-translate %t/lower_bound_no_alog.mlir --kda-to-bundle --no-cubin -o %t/lower_bound_no_alog.kdab
// RUN: kda-run %t/softplus.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/softplus.kdab --cpu --batch 1 --seq-len 1 --heads 2 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/lower_bound.kdab --cpu --batch 3 --seq-len 130 --heads 2 --value-heads 4 --seed 3 | FileCheck %s
// RUN: kda-run %t/lower_bound_no_alog.kdab --cpu --batch 1 --seq-len 300 --heads 3 --value-heads 3 --cu-seqlens 0,1,64,65,300 | FileCheck %s

// CHECK: (program=gate_cumsum) on the CPU build: {{.*}} gate={{softplus|lower_bound}}
// CHECK-NOT: FAIL
// CHECK: PASS

// --mask-p and --gate-norm shape precomputed gates only.
// RUN: not kda-run %t/softplus.kdab --cpu --batch 1 --seq-len 8 --heads 1 --value-heads 2 --mask-p 0.1 2>&1 | FileCheck %s --check-prefix=MASK --implicit-check-not='{{.}}'
// MASK: {{^}}kda-run: error: --mask-p and --gate-norm apply to precomputed gates; the bundle's gate is softplus{{$}}

//--- softplus.mlir
func.func @gate_softplus(%g: tensor<?x?x2x100xf16>, %a: tensor<2xf32>, %dt: tensor<2x100xf32>) -> tensor<?x?x2x100xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x100xf16>, tensor<2xf32>, tensor<2x100xf32>) -> tensor<?x?x2x100xf32>
  return %G : tensor<?x?x2x100xf32>
}

//--- lower_bound.mlir
func.func @gate_lower_bound(%g: tensor<?x?x4x64xbf16>, %a: tensor<4xf32>, %dt: tensor<256xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<4xf32>, tensor<256xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

//--- lower_bound_no_alog.mlir
func.func @gate_lower_bound_no_alog(%g: tensor<1x?x3x60xbf16>, %dt: tensor<180xf32>, %cu: tensor<?xi64>) -> tensor<1x?x3x60xf32> {
  %G = kda.gate_cumsum %g dt_bias %dt cu_seqlens %cu {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -1.0 : f32}
      : (tensor<1x?x3x60xbf16>, tensor<180xf32>, tensor<?xi64>) -> tensor<1x?x3x60xf32>
  return %G : tensor<1x?x3x60xf32>
}
