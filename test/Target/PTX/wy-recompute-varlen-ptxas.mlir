// REQUIRES: ptxas
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// Varlen kda.wy_recompute at the target shape (H = HV = 96, K = V = 128,
// bf16, chunk 64) assembles for sm_90. ptxas 13.0 spills 8 bytes by its own
// choice (no register cap binds) since the dots take bf16 tiles; the
// check allows at most 32 bytes, so growth is caught.

// CHECK: Compiling entry function 'wy_recompute_varlen_wy_recompute_0' for 'sm_90'
// CHECK: {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads

func.func @wy_recompute_varlen(%k: tensor<1x?x96x128xbf16>, %v: tensor<1x?x96x128xbf16>, %G: tensor<1x?x96x128xf32>, %beta: tensor<1x?x96xf32>, %M: tensor<1x?x96x64xbf16>, %cu: tensor<?xi64>)
    -> (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>, tensor<1x?x96xf32>, tensor<1x?x96x64xbf16>, tensor<?xi64>)
      -> (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>)
  return %w, %u, %kg : tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>
}
