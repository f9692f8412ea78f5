// REQUIRES: ptxas, libdevice
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// In-kernel gates use exp and log1p from libdevice, which the compiler links
// from the CUDA toolkit: no unresolved __nv_ functions remain.

// CHECK-NOT: .extern .func __nv_
// CHECK: .visible .entry gate_softplus_gate_cumsum_0(
// CHECK: ex2.approx.ftz.f32
// CHECK: .visible .entry gate_softplus_gate_cumsum_1(
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

func.func @gate_softplus(%g: tensor<?x?x2x100xf16>, %a: tensor<2xf32>, %dt: tensor<2x100xf32>,
                         %a2: tensor<2xf32>, %cu: tensor<?xi64>) -> (tensor<?x?x2x100xf32>, tensor<?x?x2x100xf32>) {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x2x100xf16>, tensor<2xf32>, tensor<2x100xf32>) -> tensor<?x?x2x100xf32>
  %G2 = kda.gate_cumsum %g a_log %a2 cu_seqlens %cu {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<?x?x2x100xf16>, tensor<2xf32>, tensor<?xi64>) -> tensor<?x?x2x100xf32>
  return %G, %G2 : tensor<?x?x2x100xf32>, tensor<?x?x2x100xf32>
}
