// REQUIRES: ptxas
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// Varlen kda.output at the target shape (H = HV = 96, K = V = 128, bf16,
// chunk 64, state_layout vk) assembles for sm_90. The loop that sums the
// chunk counts of the earlier sequences (h's chunk id) costs spilled bytes
// (20 bytes of spill stores at 128 registers with ptxas 13.0 when this was
// last updated); spills are not checked here.

// CHECK: Compiling entry function 'output_varlen_output_0' for 'sm_90'
// CHECK: Used {{[0-9]+}} registers

func.func @output_varlen(%q: tensor<1x?x96x128xbf16>, %G: tensor<1x?x96x128xf32>, %Aqk: tensor<1x?x96x64xbf16>, %h: tensor<1x?x96x128x128xbf16>, %vn: tensor<1x?x96x128xbf16>, %cu: tensor<?xi64>)
    -> tensor<1x?x96x128xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu {scale = 0.0883883461 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>, tensor<1x?x96x64xbf16>, tensor<1x?x96x128x128xbf16>, tensor<1x?x96x128xbf16>, tensor<?xi64>)
      -> tensor<1x?x96x128xbf16>
  return %o : tensor<1x?x96x128xbf16>
}
