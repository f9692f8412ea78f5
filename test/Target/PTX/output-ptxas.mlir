// REQUIRES: ptxas
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// kda.output at the target shape (H = HV = 96, K = V = 128, bf16, chunk 64),
// both state layouts, assembles for sm_90 (tile temporaries in about 80 KB
// of dynamic shared memory). ptxas 13.0 chooses 96 registers and spills
// 8-12 bytes by its own choice (no register cap binds): the unrolled
// per-thread loops keep more addresses live. At most 32 bytes are allowed,
// so growth is caught.

// CHECK: Compiling entry function 'output_vk_output_0' for 'sm_90'
// CHECK: {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads
// CHECK: Compiling entry function 'output_kv_output_0' for 'sm_90'
// CHECK: {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads

func.func @output_kv(%q: tensor<1x?x96x128xbf16>, %G: tensor<1x?x96x128xf32>,
                     %Aqk: tensor<1x?x96x64xbf16>, %h: tensor<1x?x96x128x128xbf16>,
                     %vn: tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.0883883461 : f32}
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>, tensor<1x?x96x64xbf16>,
         tensor<1x?x96x128x128xbf16>, tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16>
  return %o : tensor<1x?x96x128xbf16>
}

func.func @output_vk(%q: tensor<1x?x96x128xbf16>, %G: tensor<1x?x96x128xf32>,
                     %Aqk: tensor<1x?x96x64xbf16>, %h: tensor<1x?x96x128x128xbf16>,
                     %vn: tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn
      {scale = 0.0883883461 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>, tensor<1x?x96x64xbf16>,
         tensor<1x?x96x128x128xbf16>, tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16>
  return %o : tensor<1x?x96x128xbf16>
}
