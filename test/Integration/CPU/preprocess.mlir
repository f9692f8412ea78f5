// The preprocessing stages on the CPU build against the float64 reference:
// kda.l2norm (K = 60 in bf16, K = 128 in f32 and f16; T = 1, 63, 65) and
// kda.beta_activation (bf16 logits with allow_neg_eigval, f32 without); and
// one injected error that the check catches.

// RUN: split-file %s %t
// RUN: kda-translate %t/l2_bf16_k60.mlir --kda-to-bundle --no-cubin -o %t/l2_bf16_k60.kdab
// RUN: kda-translate %t/l2_f32_k128.mlir --kda-to-bundle --no-cubin -o %t/l2_f32_k128.kdab
// RUN: kda-translate %t/l2_f16_k128.mlir --kda-to-bundle --no-cubin -o %t/l2_f16_k128.kdab
// RUN: kda-translate %t/beta_bf16_neg.mlir --kda-to-bundle --no-cubin -o %t/beta_bf16_neg.kdab
// RUN: kda-translate %t/beta_f32.mlir --kda-to-bundle --no-cubin -o %t/beta_f32.kdab
// RUN: kda-run %t/l2_bf16_k60.kdab --cpu --batch 2 --seq-len 65 --heads 4 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,L2
// RUN: kda-run %t/l2_bf16_k60.kdab --cpu --batch 1 --seq-len 1 --heads 4 --value-heads 8 | FileCheck %s --check-prefixes=CHECK,L2
// RUN: kda-run %t/l2_f32_k128.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,L2
// RUN: kda-run %t/l2_f16_k128.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 2 | FileCheck %s --check-prefixes=CHECK,L2
// RUN: kda-run %t/beta_bf16_neg.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 6 | FileCheck %s --check-prefixes=CHECK,NEG
// RUN: kda-run %t/beta_f32.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 96 | FileCheck %s
// RUN: not kda-run %t/beta_f32.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 96 --inject-error | FileCheck %s --check-prefix=BAD

// L2: (program=l2norm) on the CPU build
// NEG: (program=beta_activation) on the CPU build: {{.*}} allow_neg_eigval
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: FAIL {{.*}}(beta: rms_ratio above

//--- l2_bf16_k60.mlir
func.func @l2_bf16_k60(%q: tensor<?x?x4x60xbf16>) -> tensor<?x?x4x60xbf16> {
  %r = kda.l2norm %q : (tensor<?x?x4x60xbf16>) -> tensor<?x?x4x60xbf16>
  return %r : tensor<?x?x4x60xbf16>
}
//--- l2_f32_k128.mlir
func.func @l2_f32_k128(%q: tensor<?x?x2x128xf32>) -> tensor<?x?x2x128xf32> {
  %r = kda.l2norm %q : (tensor<?x?x2x128xf32>) -> tensor<?x?x2x128xf32>
  return %r : tensor<?x?x2x128xf32>
}
//--- l2_f16_k128.mlir
func.func @l2_f16_k128(%k: tensor<1x?x2x128xf16>) -> tensor<1x?x2x128xf16> {
  %r = kda.l2norm %k : (tensor<1x?x2x128xf16>) -> tensor<1x?x2x128xf16>
  return %r : tensor<1x?x2x128xf16>
}
//--- beta_bf16_neg.mlir
func.func @beta_bf16_neg(%b: tensor<?x?x6xbf16>) -> tensor<?x?x6xf32> {
  %r = kda.beta_activation %b {allow_neg_eigval} : (tensor<?x?x6xbf16>) -> tensor<?x?x6xf32>
  return %r : tensor<?x?x6xf32>
}
//--- beta_f32.mlir
func.func @beta_f32(%b: tensor<?x?x96xf32>) -> tensor<?x?x96xf32> {
  %r = kda.beta_activation %b : (tensor<?x?x96xf32>) -> tensor<?x?x96xf32>
  return %r : tensor<?x?x96xf32>
}
