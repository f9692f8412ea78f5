// kda.output on fixed-length sequences on the CPU build: B = 2,
// T = 1, 63, 64, 65, chunk 64 and 32, (H, HV) = (1, 1), (2, 8), (2, 4),
// K = V = 60, 100, 128 and K != V, bf16, f16 and f32, state_layout kv
// and vk.
// Aqk holds NaN above its diagonal, which the kernel must mask.

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
// RUN: kda-translate %t/k128_v60_f32_vk_chunk32.mlir --kda-to-bundle --no-cubin -o %t/k128_v60_f32_vk_chunk32.kdab
// RUN: kda-run %t/k128_v60_f32_vk_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_vk_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_vk_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k128_v60_f32_vk_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-translate %t/k60_v100_bf16_vk.mlir --kda-to-bundle --no-cubin -o %t/k60_v100_bf16_vk.kdab
// RUN: kda-run %t/k60_v100_bf16_vk.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16_vk.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16_vk.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-run %t/k60_v100_bf16_vk.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 2 | FileCheck %s
// RUN: kda-translate %t/k64_v96_f16.mlir --kda-to-bundle --no-cubin -o %t/k64_v96_f16.kdab
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t/k64_v96_f16.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 4 | FileCheck %s
// RUN: not kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --inject-error | FileCheck %s --check-prefix=WRONG
// --check-heads 3: 3 of the 16 (sequence, head) pairs are compared (every
// element is still scanned for NaN/Inf), and an injected error in a compared
// pair fails the check.
// RUN: kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --check-heads 3 | FileCheck %s --check-prefixes=CHECK,SAMPLED
// RUN: not kda-run %t/gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --check-heads 3 --inject-error | FileCheck %s --check-prefix=WRONG

// CHECK: (program=output) on the CPU build:
// SAMPLED: checking 3 of 16 (sequence, head) pairs
// CHECK-NOT: FAIL
// CHECK: PASS
// WRONG: FAIL

//--- h1_k60_f32.mlir
func.func @h1_k60_f32(%q: tensor<?x?x1x60xf32>, %G: tensor<?x?x1x60xf32>, %Aqk: tensor<?x?x1x64xf32>, %h: tensor<?x?x1x60x60xf32>, %vn: tensor<?x?x1x60xf32>)
    -> tensor<?x?x1x60xf32> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x60x60xf32>, tensor<?x?x1x60xf32>)
      -> tensor<?x?x1x60xf32>
  return %o : tensor<?x?x1x60xf32>
}

//--- gva_k100_bf16_chunk32.mlir
func.func @gva_k100_bf16_chunk32(%q: tensor<?x?x2x100xbf16>, %G: tensor<?x?x8x100xf32>, %Aqk: tensor<?x?x8x32xbf16>, %h: tensor<?x?x8x100x100xbf16>, %vn: tensor<?x?x8x100xbf16>)
    -> tensor<?x?x8x100xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32, chunk_size = 32 : i64}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x8x100xf32>, tensor<?x?x8x32xbf16>, tensor<?x?x8x100x100xbf16>, tensor<?x?x8x100xbf16>)
      -> tensor<?x?x8x100xbf16>
  return %o : tensor<?x?x8x100xbf16>
}

//--- gva_k128_bf16.mlir
func.func @gva_k128_bf16(%q: tensor<?x?x2x128xbf16>, %G: tensor<?x?x8x128xf32>, %Aqk: tensor<?x?x8x64xbf16>, %h: tensor<?x?x8x128x128xbf16>, %vn: tensor<?x?x8x128xbf16>)
    -> tensor<?x?x8x128xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x2x128xbf16>, tensor<?x?x8x128xf32>, tensor<?x?x8x64xbf16>, tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>)
      -> tensor<?x?x8x128xbf16>
  return %o : tensor<?x?x8x128xbf16>
}

//--- k128_v60_f32_vk_chunk32.mlir
func.func @k128_v60_f32_vk_chunk32(%q: tensor<?x?x2x128xf32>, %G: tensor<?x?x4x128xf32>, %Aqk: tensor<?x?x4x32xf32>, %h: tensor<?x?x4x60x128xf32>, %vn: tensor<?x?x4x60xf32>)
    -> tensor<?x?x4x60xf32> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32, chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x2x128xf32>, tensor<?x?x4x128xf32>, tensor<?x?x4x32xf32>, tensor<?x?x4x60x128xf32>, tensor<?x?x4x60xf32>)
      -> tensor<?x?x4x60xf32>
  return %o : tensor<?x?x4x60xf32>
}

//--- k60_v100_bf16_vk.mlir
func.func @k60_v100_bf16_vk(%q: tensor<?x?x1x60xbf16>, %G: tensor<?x?x2x60xf32>, %Aqk: tensor<?x?x2x64xbf16>, %h: tensor<?x?x2x100x60xbf16>, %vn: tensor<?x?x2x100xbf16>)
    -> tensor<?x?x2x100xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x1x60xbf16>, tensor<?x?x2x60xf32>, tensor<?x?x2x64xbf16>, tensor<?x?x2x100x60xbf16>, tensor<?x?x2x100xbf16>)
      -> tensor<?x?x2x100xbf16>
  return %o : tensor<?x?x2x100xbf16>
}

//--- k64_v96_f16.mlir
func.func @k64_v96_f16(%q: tensor<?x?x2x64xf16>, %G: tensor<?x?x4x64xf32>, %Aqk: tensor<?x?x4x64xf16>, %h: tensor<?x?x4x64x96xf16>, %vn: tensor<?x?x4x96xf16>)
    -> tensor<?x?x4x96xf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn {scale = 0.125 : f32}
      : (tensor<?x?x2x64xf16>, tensor<?x?x4x64xf32>, tensor<?x?x4x64xf16>, tensor<?x?x4x64x96xf16>, tensor<?x?x4x96xf16>)
      -> tensor<?x?x4x96xf16>
  return %o : tensor<?x?x4x96xf16>
}
