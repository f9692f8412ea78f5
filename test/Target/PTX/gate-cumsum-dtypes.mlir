// RUN: kda-translate %s --kda-to-ptx | FileCheck %s

// Raw f16 and bf16 gates are widened to f32 after the load; the cumsum and
// the stored G are f32.

// CHECK-LABEL: .visible .entry gate_f16_gate_cumsum_0(
// CHECK: ld.global.{{b16|u16}}
// CHECK: cvt.f32.f16
// CHECK: st.global.b32
// CHECK-LABEL: .visible .entry gate_f16_gate_cumsum_1(
// CHECK: ld.global.{{b16|u16}}
// CHECK: st.global.b32

func.func @gate_f16(%g: tensor<?x?x2x64xf16>, %gb: tensor<?x?x2x64xbf16>) -> (tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>) {
  %G = kda.gate_cumsum %g : (tensor<?x?x2x64xf16>) -> tensor<?x?x2x64xf32>
  %H = kda.gate_cumsum %gb : (tensor<?x?x2x64xbf16>) -> tensor<?x?x2x64xf32>
  return %G, %H : tensor<?x?x2x64xf32>, tensor<?x?x2x64xf32>
}
