// In-kernel gate activations on the CPU path: softplus (with A_log and
// dt_bias as [HV, K]), lower bound with and without A_log (dt_bias as
// [HV * K]), f16 and bf16 raw gates, fixed length and varlen.

// RUN: kda-cpu-run %s --entry gate_softplus --batch 2 --seq-len 65 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_softplus --batch 1 --seq-len 1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_lower_bound --batch 3 --seq-len 130 --seed 3 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_lower_bound_no_alog --seq-len 300 --cu-seqlens 0,1,64,65,300 | FileCheck %s

// CHECK: kda.gate_cumsum
// CHECK-NOT: FAIL
// CHECK: PASS

func.func @gate_softplus(%g: tensor<?x?x2x100xf16>, %a: tensor<2xf32>, %dt: tensor<2x100xf32>) -> tensor<?x?x2x100xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x100xf16>, tensor<2xf32>, tensor<2x100xf32>) -> tensor<?x?x2x100xf32>
  return %G : tensor<?x?x2x100xf32>
}

func.func @gate_lower_bound(%g: tensor<?x?x4x64xbf16>, %a: tensor<4xf32>, %dt: tensor<256xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<4xf32>, tensor<256xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

func.func @gate_lower_bound_no_alog(%g: tensor<1x?x3x60xbf16>, %dt: tensor<180xf32>, %cu: tensor<?xi64>) -> tensor<1x?x3x60xf32> {
  %G = kda.gate_cumsum %g dt_bias %dt cu_seqlens %cu {chunk_size = 32 : i64, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -1.0 : f32}
      : (tensor<1x?x3x60xbf16>, tensor<180xf32>, tensor<?xi64>) -> tensor<1x?x3x60xf32>
  return %G : tensor<1x?x3x60xf32>
}
