// RUN: kda-translate %s --kda-to-ptx | FileCheck %s
// RUN: kda-translate %s --kda-to-ptx --chip sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx && FileCheck %s --input-file %t.ptx

// The gate stage compiles to one PTX entry. With the memref descriptor ABI a
// rank-4 memref is 11 parameters (allocated and aligned pointers, offset,
// 4 sizes, 4 strides). Tiles live in shared memory and the linalg ops of the
// program are separated by barriers.

// CHECK: .version 8.0
// CHECK: .target sm_90
// CHECK: .visible .entry gate_cumsum_gate_cumsum_0(
// CHECK-COUNT-22: .param .u64
// CHECK-NOT: .param
// CHECK: .shared .align {{[0-9]+}} .b8
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x
// CHECK: bar.sync 0
// CHECK: ld.global.b32
// CHECK: st.global.b32
// CHECK: ret;

// SM90A: .target sm_90a

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
