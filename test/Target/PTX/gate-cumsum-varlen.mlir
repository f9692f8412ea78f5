// RUN: kda-translate %s --kda-to-ptx | FileCheck %s

// Varlen programs find their sequence with a binary search over cu_seqlens
// (a loop of offset loads) before any tile is loaded. The i64 offsets are
// read as two 32-bit halves: the kernel parameters carry no alignment.

// CHECK-LABEL: .visible .entry gate_varlen_gate_cumsum_0(
// CHECK: ld.global.b32 %rd{{[0-9]+}}, [%rd[[P:[0-9]+]]];
// CHECK-NEXT: ld.global.b32 %rd{{[0-9]+}}, [%rd[[P]]+4];
// CHECK: @%p{{[0-9]+}} bra $L__BB0_{{[0-9]+}};
// CHECK: bar.sync 0
func.func @gate_varlen(%g: tensor<1x?x4x64xf32>, %cu: tensor<?xi64>) -> tensor<1x?x4x64xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x4x64xf32>, tensor<?xi64>) -> tensor<1x?x4x64xf32>
  return %G : tensor<1x?x4x64xf32>
}
