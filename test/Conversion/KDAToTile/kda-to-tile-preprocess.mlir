// RUN: kda-opt %s --convert-kda-to-tile --split-input-file | FileCheck %s
// RUN: kda-opt %s --convert-kda-to-tile=approximate-sigmoid --split-input-file | FileCheck %s --check-prefix=APPROX

// kda.l2norm: one program per (32-token block, batch * head) over a flat
// grid; the [32, 64] rows (K = 60 padded) are summed along K and scaled by
// 1 / sqrt(sum + eps).

// CHECK-LABEL: func.func @l2(
// CHECK: tile.launch @l2_l2norm_0
// CHECK-LABEL: func.func @l2_l2norm_0(
// CHECK-SAME: tile.kernel
// CHECK: tile.load {{.*}} dims [1, 3] {{.*}} -> tensor<32x64xbf16>
// CHECK: tile.reduce add {{.*}} dim 1 : tensor<32x64xf32> -> tensor<32xf32>
// CHECK: math.sqrt
// CHECK: tile.broadcast
// CHECK: tile.store {{.*}} dims [1, 3]
func.func @l2(%q: tensor<?x?x4x60xbf16>) -> tensor<?x?x4x60xbf16> {
  %r = kda.l2norm %q : (tensor<?x?x4x60xbf16>) -> tensor<?x?x4x60xbf16>
  return %r : tensor<?x?x4x60xbf16>
}

// -----

// kda.beta_activation: one program per (64-token block, batch * value head);
// its 64 logits become 2 * sigmoid(x) in f32.

// CHECK-LABEL: func.func @beta(
// CHECK: tile.launch @beta_beta_activation_0
// CHECK-LABEL: func.func @beta_beta_activation_0(
// CHECK: tile.load {{.*}} dims [1] {{.*}} -> tensor<64xbf16>
// CHECK: math.exp
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: arith.divf
// CHECK: tile.store {{.*}} dims [1] :
// With approximate-sigmoid, 2 / (1 + 2^(-x log2(e))) with an approximate
// division.
// APPROX-LABEL: func.func @beta_beta_activation_0(
// APPROX: math.exp2
// APPROX: arith.divf {{.*}} fastmath<afn>
// APPROX: tile.store {{.*}} dims [1] :
func.func @beta(%b: tensor<?x?x6xbf16>) -> tensor<?x?x6xf32> {
  %r = kda.beta_activation %b {allow_neg_eigval} : (tensor<?x?x6xbf16>) -> tensor<?x?x6xf32>
  return %r : tensor<?x?x6xf32>
}
