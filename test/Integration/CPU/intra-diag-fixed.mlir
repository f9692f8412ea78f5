// kda.intra_diag without safe_gate (the exact fp32 path: per-element exp2
// of gate differences) on the CPU build: T = 1, 63, 64, 65, 300, B = 1 and
// 2, (H, HV) = (1, 1) and (2, 8), K = 60, 100 and 128, chunk 64 and 32,
// f32, bf16 and f16 I/O, gates at -1000 (--mask-p) and steep gates
// (--gate-norm 0.1), checked to the f32 threshold; and --inject-error,
// which must fail the check.

// RUN: split-file %s %t
// RUN: kda-translate %t/exact_h1_k60_f32.mlir --kda-to-bundle --no-cubin -o %t/exact_h1_k60_f32.kdab
// RUN: kda-translate %t/exact_gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/exact_gva_k100_bf16_chunk32.kdab
// RUN: kda-translate %t/exact_gva_k128_bf16.mlir --kda-to-bundle --no-cubin -o %t/exact_gva_k128_bf16.kdab
// RUN: kda-translate %t/exact_h1_k128_f16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/exact_h1_k128_f16_chunk32.kdab
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 1 --seq-len 200 --heads 1 --value-heads 1 --mask-p 0.9 --seed 7 | FileCheck %s
// RUN: kda-run %t/exact_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/exact_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/exact_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/exact_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 130 --heads 2 --value-heads 8 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/exact_gva_k128_bf16.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/exact_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --mask-p 0.5 --gate-norm 0.1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k128_f16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/exact_h1_k128_f16_chunk32.kdab --cpu --batch 1 --seq-len 100 --heads 1 --value-heads 1 --mask-p 0.1 | FileCheck %s

// The exact path factored where the gate drop allows
// (--exact-diagonal-factoring): logsigmoid gates take the factored dots
// (tf32x3 at f32 I/O, tf32 at 16-bit I/O), gates at -1000 and steep gates
// the pairwise path, sub-chunk by sub-chunk; the same checks.
// RUN: kda-translate %t/exact_h1_k60_f32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_h1_k60_f32.kdab
// RUN: kda-translate %t/exact_gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_gva_k100_bf16_chunk32.kdab
// RUN: kda-translate %t/exact_gva_k128_bf16.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_gva_k128_bf16.kdab
// RUN: kda-translate %t/exact_h1_k128_f16_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_h1_k128_f16_chunk32.kdab
// RUN: kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 1 --seq-len 200 --heads 1 --value-heads 1 --gate-norm 0.2 --seed 7 | FileCheck %s
// RUN: kda-run %t/factoring_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/factoring_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 130 --heads 2 --value-heads 8 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/factoring_gva_k128_bf16.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/factoring_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --mask-p 0.5 --gate-norm 0.1 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k128_f16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 --gate-norm 0.3 | FileCheck %s
// RUN: not kda-run %t/factoring_h1_k60_f32.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefix=INJECT
// With --exact-diagonal-rows too, the fallback by key rows in halves (each
// branch stores its own blocks): mild, -1000 and steep gates, tails.
// RUN: kda-translate %t/exact_gva_k128_bf16.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring --exact-diagonal-rows -o %t/factoring_rows_gva_k128_bf16.kdab
// RUN: kda-translate %t/exact_h1_k60_f32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring --exact-diagonal-rows -o %t/factoring_rows_h1_k60_f32.kdab
// RUN: kda-run %t/factoring_rows_gva_k128_bf16.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/factoring_rows_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --mask-p 0.5 --gate-norm 0.1 | FileCheck %s
// RUN: kda-run %t/factoring_rows_h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/factoring_rows_h1_k60_f32.kdab --cpu --batch 1 --seq-len 200 --heads 1 --value-heads 1 --gate-norm 0.2 --seed 7 | FileCheck %s

// The exact path's decays by key rows in 2-D tiles (--exact-diagonal-rows),
// over the lower triangle in halves of 8 rows: the same checks, tails
// shorter than a half (T = 1, 63, 65, 130), chunk 32's two sub-chunks.
// RUN: kda-translate %t/exact_h1_k60_f32.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rows_h1_k60_f32.kdab
// RUN: kda-translate %t/exact_gva_k100_bf16_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rows_gva_k100_bf16_chunk32.kdab
// RUN: kda-translate %t/exact_gva_k128_bf16.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rows_gva_k128_bf16.kdab
// RUN: kda-translate %t/exact_h1_k128_f16_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rows_h1_k128_f16_chunk32.kdab
// RUN: kda-run %t/rows_h1_k60_f32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/rows_h1_k60_f32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/rows_h1_k60_f32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/rows_h1_k60_f32.kdab --cpu --batch 1 --seq-len 200 --heads 1 --value-heads 1 --mask-p 0.9 --seed 7 | FileCheck %s
// RUN: kda-run %t/rows_gva_k100_bf16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/rows_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 130 --heads 2 --value-heads 8 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/rows_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --mask-p 0.5 --gate-norm 0.1 | FileCheck %s
// RUN: kda-run %t/rows_h1_k128_f16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 --gate-norm 0.3 | FileCheck %s
// RUN: not kda-run %t/rows_h1_k60_f32.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefix=INJECT

// RUN: not kda-run %t/exact_h1_k60_f32.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefix=INJECT
// RUN: not kda-run %t/exact_gva_k100_bf16_chunk32.kdab --cpu --batch 1 --seq-len 40 --heads 2 --value-heads 8 --inject-error | FileCheck %s --check-prefix=INJECT

// CHECK: (program=intra_diag) on the CPU build: {{.*}} safe_gate=0
// CHECK-NOT: FAIL
// CHECK: PASS

// INJECT: (program=intra_diag) on the CPU build:
// INJECT: FAIL

//--- exact_h1_k60_f32.mlir
func.func @exact_h1_k60_f32(%q: tensor<?x?x1x60xf32>, %k: tensor<?x?x1x60xf32>,
                            %G: tensor<?x?x1x60xf32>, %beta: tensor<?x?x1xf32>)
    -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.125 : f32}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>,
         tensor<?x?x1xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>
}

//--- exact_gva_k100_bf16_chunk32.mlir
func.func @exact_gva_k100_bf16_chunk32(%q: tensor<?x?x2x100xbf16>, %k: tensor<?x?x2x100xbf16>,
                                       %G: tensor<?x?x8x100xf32>, %beta: tensor<?x?x8xf32>)
    -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.1 : f32, chunk_size = 32 : i64}
      : (tensor<?x?x2x100xbf16>, tensor<?x?x2x100xbf16>, tensor<?x?x8x100xf32>,
         tensor<?x?x8xf32>)
      -> (tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x8x32xbf16>, tensor<?x?x8x16xf32>
}

//--- exact_gva_k128_bf16.mlir
func.func @exact_gva_k128_bf16(%q: tensor<?x?x2x128xbf16>, %k: tensor<?x?x2x128xbf16>,
                               %G: tensor<?x?x8x128xf32>, %beta: tensor<?x?x8xbf16>)
    -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 0.125 : f32}
      : (tensor<?x?x2x128xbf16>, tensor<?x?x2x128xbf16>, tensor<?x?x8x128xf32>,
         tensor<?x?x8xbf16>)
      -> (tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x8x64xbf16>, tensor<?x?x8x16xf32>
}

//--- exact_h1_k128_f16_chunk32.mlir
func.func @exact_h1_k128_f16_chunk32(%q: tensor<?x?x1x128xf16>, %k: tensor<?x?x1x128xf16>,
                                     %G: tensor<?x?x1x128xf32>, %beta: tensor<?x?x1xf16>)
    -> (tensor<?x?x1x32xf16>, tensor<?x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta
      {scale = 1.0 : f32, chunk_size = 32 : i64}
      : (tensor<?x?x1x128xf16>, tensor<?x?x1x128xf16>, tensor<?x?x1x128xf32>,
         tensor<?x?x1xf16>)
      -> (tensor<?x?x1x32xf16>, tensor<?x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x1x32xf16>, tensor<?x?x1x16xf32>
}
