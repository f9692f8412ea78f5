// REQUIRES: ptxas, libdevice
// RUN: split-file %s %t
// RUN: kda-translate %t/l2norm.mlir --kda-to-ptx -o %t/l2norm.ptx
// RUN: %ptxas -arch=sm_90 -v %t/l2norm.ptx -o %t/l2norm.cubin 2>&1 | FileCheck %s --check-prefix=L2
// RUN: kda-translate %t/beta.mlir --kda-to-ptx -o %t/beta.ptx
// RUN: %ptxas -arch=sm_90 -v %t/beta.ptx -o %t/beta.cubin 2>&1 | FileCheck %s --check-prefix=BETA

// The preprocessing kernels at the benchmark shape (H = HV = 96, K = 128,
// bf16) assemble for sm_90 without spills.

// L2: Compiling entry function 'l2norm_l2norm_0' for 'sm_90'
// L2: 0 bytes spill stores, 0 bytes spill loads
// BETA: Compiling entry function 'beta_beta_activation_0' for 'sm_90'
// BETA: 0 bytes spill stores, 0 bytes spill loads

//--- l2norm.mlir
func.func @l2norm(%q: tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16> {
  %r = kda.l2norm %q : (tensor<1x?x96x128xbf16>) -> tensor<1x?x96x128xbf16>
  return %r : tensor<1x?x96x128xbf16>
}
//--- beta.mlir
func.func @beta(%b: tensor<1x?x96xbf16>) -> tensor<1x?x96xf32> {
  %r = kda.beta_activation %b : (tensor<1x?x96xbf16>) -> tensor<1x?x96xf32>
  return %r : tensor<1x?x96xf32>
}
