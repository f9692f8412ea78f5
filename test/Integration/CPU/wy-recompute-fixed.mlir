// kda.wy_recompute on fixed-length sequences on the CPU build: B = 2,
// T = 1, 63, 64, 65 (tails of 1, 63 and 1 rows, a single full chunk), chunk
// 64 and 32, one head and grouped value heads (H, HV) = (2, 8) and (2, 4),
// K = V = 60, 100, 128 and K != V, bf16, f16 and f32 (and bf16 k with
// f32 v). M holds NaN above its diagonal and past the sequence end, which
// the kernel must ignore.

// RUN: split-file %s %t
// RUN: kda-translate %t/h1_k60_f32.mlir --kda-to-bundle --no-cubin -o %t/h1_k60_f32.kdab
// RUN: kda-run %t/h1_k60_f32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/h1_k60_f32.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/h1_k60_f32.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-translate %t/gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/gva_k100_bf16_chunk32.kdab
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-translate %t/gva_k128_bf16.mlir --kda-to-bundle --no-cubin -o %t/gva_k128_bf16.kdab
// RUN: kda-run %t/gva_k128_bf16.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k128_bf16.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k128_bf16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k128_bf16.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-translate %t/k128_v60_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/k128_v60_f32_chunk32.kdab
// RUN: kda-run %t/k128_v60_f32_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-translate %t/k60_v100_bf16.mlir --kda-to-bundle --no-cubin -o %t/k60_v100_bf16.kdab
// RUN: kda-run %t/k60_v100_bf16.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-translate %t/k64_v96_f16.mlir --kda-to-bundle --no-cubin -o %t/k64_v96_f16.kdab
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-translate %t/k64_bf16_v96_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/k64_bf16_v96_f32_chunk32.kdab
// RUN: kda-run %t/k64_bf16_v96_f32_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_bf16_v96_f32_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_bf16_v96_f32_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_bf16_v96_f32_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 4 | FileCheck %s
// RUN: not kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --inject-error | FileCheck %s --check-prefix=WRONG
// --check-heads 3: 3 of the 16 (sequence, head) pairs are compared (every
// element is still scanned for NaN/Inf), and an injected error in a compared
// pair fails the check.
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --check-heads 3 | FileCheck %s --check-prefixes=CHECK,SAMPLED
// RUN: not kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --check-heads 3 --inject-error | FileCheck %s --check-prefix=WRONG

// CHECK: (program=wy_recompute) on the CPU build:
// SAMPLED: checking 3 of 16 (sequence, head) pairs
// CHECK-NOT: FAIL
// CHECK: PASS
// WRONG: FAIL

//--- h1_k60_f32.mlir
func.func @h1_k60_f32(%k: tensor<?x?x1x60xf32>, %v: tensor<?x?x1x60xf32>, %G: tensor<?x?x1x60xf32>, %beta: tensor<?x?x1xf32>, %M: tensor<?x?x1x64xf32>)
    -> (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1xf32>, tensor<?x?x1x64xf32>)
      -> (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>)
  return %w, %u, %kg : tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>
}

//--- gva_k100_bf16_chunk32.mlir
func.func @gva_k100_bf16_chunk32(%k: tensor<?x?x2x100xbf16>, %v: tensor<?x?x8x100xbf16>, %G: tensor<?x?x8x100xf32>, %beta: tensor<?x?x8xf32>, %M: tensor<?x?x8x32xbf16>)
    -> (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M {chunk_size = 32 : i64}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xf32>, tensor<?x?x8xf32>, tensor<?x?x8x32xbf16>)
      -> (tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>)
  return %w, %u, %kg : tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>, tensor<?x?x8x100xbf16>
}

//--- gva_k128_bf16.mlir
func.func @gva_k128_bf16(%k: tensor<?x?x2x128xbf16>, %v: tensor<?x?x8x128xbf16>, %G: tensor<?x?x8x128xf32>, %beta: tensor<?x?x8xf32>, %M: tensor<?x?x8x64xbf16>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x2x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf32>, tensor<?x?x8xf32>, tensor<?x?x8x64xbf16>)
      -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>)
  return %w, %u, %kg : tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>
}

//--- k128_v60_f32_chunk32.mlir
func.func @k128_v60_f32_chunk32(%k: tensor<?x?x2x128xf32>, %v: tensor<?x?x4x60xf32>, %G: tensor<?x?x4x128xf32>, %beta: tensor<?x?x4xf32>, %M: tensor<?x?x4x32xf32>)
    -> (tensor<?x?x4x128xf32>, tensor<?x?x4x60xf32>, tensor<?x?x4x128xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M {chunk_size = 32 : i64}
      : (tensor<?x?x2x128xf32>, tensor<?x?x4x60xf32>, tensor<?x?x4x128xf32>, tensor<?x?x4xf32>, tensor<?x?x4x32xf32>)
      -> (tensor<?x?x4x128xf32>, tensor<?x?x4x60xf32>, tensor<?x?x4x128xf32>)
  return %w, %u, %kg : tensor<?x?x4x128xf32>, tensor<?x?x4x60xf32>, tensor<?x?x4x128xf32>
}

//--- k60_v100_bf16.mlir
func.func @k60_v100_bf16(%k: tensor<?x?x1x60xbf16>, %v: tensor<?x?x2x100xbf16>, %G: tensor<?x?x2x60xf32>, %beta: tensor<?x?x2xf32>, %M: tensor<?x?x2x64xbf16>)
    -> (tensor<?x?x2x60xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x2x60xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x1x60xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x2x60xf32>, tensor<?x?x2xf32>, tensor<?x?x2x64xbf16>)
      -> (tensor<?x?x2x60xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x2x60xbf16>)
  return %w, %u, %kg : tensor<?x?x2x60xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x2x60xbf16>
}

//--- k64_v96_f16.mlir
func.func @k64_v96_f16(%k: tensor<?x?x2x64xf16>, %v: tensor<?x?x4x96xf16>, %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>, %M: tensor<?x?x4x64xf16>)
    -> (tensor<?x?x4x64xf16>, tensor<?x?x4x96xf16>, tensor<?x?x4x64xf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<?x?x2x64xf16>, tensor<?x?x4x96xf16>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>, tensor<?x?x4x64xf16>)
      -> (tensor<?x?x4x64xf16>, tensor<?x?x4x96xf16>, tensor<?x?x4x64xf16>)
  return %w, %u, %kg : tensor<?x?x4x64xf16>, tensor<?x?x4x96xf16>, tensor<?x?x4x64xf16>
}

//--- k64_bf16_v96_f32_chunk32.mlir
func.func @k64_bf16_v96_f32_chunk32(%k: tensor<?x?x2x64xbf16>, %v: tensor<?x?x4x96xf32>, %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>, %M: tensor<?x?x4x32xbf16>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x96xf32>, tensor<?x?x4x64xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M {chunk_size = 32 : i64}
      : (tensor<?x?x2x64xbf16>, tensor<?x?x4x96xf32>, tensor<?x?x4x64xf32>, tensor<?x?x4xf32>, tensor<?x?x4x32xbf16>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x96xf32>, tensor<?x?x4x64xbf16>)
  return %w, %u, %kg : tensor<?x?x4x64xbf16>, tensor<?x?x4x96xf32>, tensor<?x?x4x64xbf16>
}
