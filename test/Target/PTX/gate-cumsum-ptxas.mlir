// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/gate_cumsum.mlir --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kda-translate %s --kda-to-ptx --chip sm_90a -o %t.a.ptx
// RUN: %ptxas -arch=sm_90a %t.a.ptx -o %t.a.cubin

// The example's PTX assembles for sm_90, without local-memory spills.

// CHECK: Compiling entry function 'gate_cumsum_gate_cumsum_0' for 'sm_90'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @gate_cumsum(%g: tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xf32> {
  %G = kda.gate_cumsum %g {chunk_size = 32 : i64}
      : (tensor<2x?x8x128xbf16>) -> tensor<2x?x8x128xf32>
  return %G : tensor<2x?x8x128xf32>
}
