// kda.intra_diag with safe_gate on the CPU build: gates clamped to
// [-5, 0], the blocks as tf32 dots of tiles rescaled by the middle row's
// gate, and Akkd holding the inverted diagonal blocks. T = 1, 63, 64, 65,
// 130, 300, B = 1 and 2, (H, HV) = (1, 1) and (2, 8), K = 60, 100 and 128,
// chunk 64 and 32, f32, bf16 and f16 I/O; and --inject-error.

// RUN: split-file %s %t
// RUN: kda-translate %t/safe_h1_k60_f32.mlir --kda-to-bundle --no-cubin -o %t/safe_h1_k60_f32.kdab
// RUN: kda-translate %t/safe_gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/safe_gva_k100_bf16_chunk32.kdab
// RUN: kda-translate %t/safe_gva_k128_bf16.mlir --kda-to-bundle --no-cubin -o %t/safe_gva_k128_bf16.kdab
// RUN: kda-translate %t/safe_h1_k128_f16.mlir --kda-to-bundle --no-cubin -o %t/safe_h1_k128_f16.kdab
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k60_f32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.3 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 130 --heads 2 --value-heads 8 --seed 3 | FileCheck %s
// RUN: kda-run %t/safe_gva_k128_bf16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/safe_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/safe_h1_k128_f16.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/safe_h1_k128_f16.kdab --cpu --batch 1 --seq-len 200 --heads 1 --value-heads 1 --gate-norm 0.1 | FileCheck %s
// RUN: not kda-run %t/safe_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 64 --heads 2 --value-heads 8 --inject-error | FileCheck %s --check-prefix=INJECT

// CHECK: (program=intra_diag) on the CPU build: {{.*}} safe_gate=1
// CHECK-NOT: FAIL
// CHECK: PASS

// INJECT: (program=intra_diag) on the CPU build:
// INJECT: FAIL

//--- safe_h1_k60_f32.mlir
func.func @safe_h1_k60_f32(%q: tensor<?x?x1x60xf32>, %k: tensor<?x?x1x60xf32>,
                           %G: tensor<?x?x1x60xf32>, %beta: tensor<?x?x1xf32>)
    -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.125 : f32, safe_gate}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>,
         tensor<?x?x1xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>
}

//--- safe_gva_k100_bf16_chunk32.mlir
func.func @safe_gva_k100_bf16_chunk32(%q: tensor<?x?x2x100xbf16>, %k: tensor<?x?x2x100xbf16>,
                                      %G: tensor<?x?x8x100xf32>, %beta: tensor<?x?x8xf32>)
    -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x8x100xf32>,
         tensor<?x?x8xf32>)
      -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>
}

//--- safe_gva_k128_bf16.mlir
func.func @safe_gva_k128_bf16(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>,
                              %G: tensor<?x?x8x128xf32>, %beta: tensor<?x?x8xf32>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.125 : f32, safe_gate}
      : (tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x8x128xf32>,
         tensor<?x?x8xf32>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>
}

//--- safe_h1_k128_f16.mlir
func.func @safe_h1_k128_f16(%q: tensor<?x?x1x128xf16>, %k: tensor<?x?x1x128xf16>,
                            %G: tensor<?x?x1x128xf32>, %beta: tensor<?x?x1xf16>)
    -> (tensor<?x?x1x64xf16>, tensor<?x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.125 : f32, safe_gate}
      : (tensor<?x?x1x128xf16>, tensor<?x?x1x128xf16>, tensor<?x?x1x128xf32>,
         tensor<?x?x1xf16>)
      -> (tensor<?x?x1x64xf16>, tensor<?x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x1x64xf16>, tensor<?x?x1x16xf32>
}
