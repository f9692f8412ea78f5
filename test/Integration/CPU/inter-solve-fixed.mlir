// kda.inter_solve (the seed kernel) on the CPU path against the float64
// reference, fixed length: T = 63, 64, 65 and 500 (tails of 63 and 1 rows,
// a whole chunk, sub-chunks past the end), B = 1 and 2, (H, HV) = (1, 1) and
// (2, 8) (grouped value heads), K = 64, 60 and 100 (K tiles of 32 with a
// partial last tile), chunk 64 and 32, gates down to -1000 (--mask-p), and
// every I/O dtype. Every run must end with PASS (kda-cpu-run exits non-zero
// on FAIL).

// RUN: kda-cpu-run %s --entry h1_k64_bf16 --batch 1 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --entry h1_k64_bf16 --batch 2 --seq-len 64 | FileCheck %s
// RUN: kda-cpu-run %s --entry h1_k64_bf16 --batch 1 --seq-len 65 --seed 1 | FileCheck %s
// RUN: kda-cpu-run %s --entry h1_k64_bf16 --batch 2 --seq-len 500 --mask-p 0.5 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k60_f16_chunk32 --batch 2 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k60_f16_chunk32 --batch 1 --seq-len 64 --mask-p 0.1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k60_f16_chunk32 --batch 2 --seq-len 65 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k60_f16_chunk32 --batch 1 --seq-len 500 --seed 2 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k100_f32 --batch 1 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k100_f32 --batch 2 --seq-len 65 --gate-norm 0.1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k100_f32 --batch 1 --seq-len 500 --mask-p 0.1 | FileCheck %s

// Shorter than a sub-chunk (no off-diagonal block at all) and one row past
// a sub-chunk.
// RUN: kda-cpu-run %s --entry h1_k64_bf16 --batch 2 --seq-len 1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gva_k100_f32 --batch 1 --seq-len 17 | FileCheck %s

// CHECK: (kda.inter_solve)
// CHECK: Aqk_out {{.*}} 0 {{.*}}
// CHECK: M {{.*}} 0 {{.*}}
// CHECK-NOT: FAIL
// CHECK: PASS

// The checker catches a wrong element.
// RUN: not kda-cpu-run %s --entry gva_k100_f32 --batch 1 --seq-len 65 --inject-error | FileCheck %s --check-prefix=WRONG
// WRONG: FAIL worst rms_ratio=

func.func @h1_k64_bf16(%q: tensor<?x?x1x64xbf16>, %k: tensor<?x?x1x64xbf16>,
                       %G: tensor<?x?x1x64xf32>, %beta: tensor<?x?x1xf32>,
                       %Aqk: tensor<?x?x1x64xbf16>, %Akkd: tensor<?x?x1x16xf32>)
    -> (tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>, tensor<?x?x1x64xf32>,
         tensor<?x?x1xf32>, tensor<?x?x1x64xbf16>, tensor<?x?x1x16xf32>)
      -> (tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x1x64xbf16>, tensor<?x?x1x64xbf16>
}

func.func @gva_k60_f16_chunk32(%q: tensor<?x?x2x60xf16>, %k: tensor<?x?x2x60xf16>,
                               %G: tensor<?x?x8x60xf32>, %beta: tensor<?x?x8xf32>,
                               %Aqk: tensor<?x?x8x32xf16>, %Akkd: tensor<?x?x8x16xf32>)
    -> (tensor<?x?x8x32xf16>, tensor<?x?x8x32xf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 1.0 : f32, chunk_size = 32 : i64, precision = #kda<precision tf32x3>}
      : (tensor<?x?x2x60xf16>, tensor<?x?x2x60xf16>, tensor<?x?x8x60xf32>,
         tensor<?x?x8xf32>, tensor<?x?x8x32xf16>, tensor<?x?x8x16xf32>)
      -> (tensor<?x?x8x32xf16>, tensor<?x?x8x32xf16>)
  return %Aqk_out, %M : tensor<?x?x8x32xf16>, tensor<?x?x8x32xf16>
}

// beta in bf16; the results returned in the other order.
func.func @gva_k100_f32(%q: tensor<?x?x2x100xf32>, %k: tensor<?x?x2x100xf32>,
                        %G: tensor<?x?x8x100xf32>, %beta: tensor<?x?x8xbf16>,
                        %Aqk: tensor<?x?x8x64xf32>, %Akkd: tensor<?x?x8x16xf32>)
    -> (tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.1 : f32, precision = #kda<precision ieee>}
      : (tensor<?x?x2x100xf32>, tensor<?x?x2x100xf32>, tensor<?x?x8x100xf32>,
         tensor<?x?x8xbf16>, tensor<?x?x8x64xf32>, tensor<?x?x8x16xf32>)
      -> (tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>)
  return %M, %Aqk_out : tensor<?x?x8x64xf32>, tensor<?x?x8x64xf32>
}
