// kda.inter_solve (the seed kernel) on the CPU build against the float64
// reference, fixed length: T = 63, 64, 65 and 500 (tails of 63 and 1 rows,
// a whole chunk, sub-chunks past the end), B = 1 and 2, (H, HV) = (1, 1) and
// (2, 8) (grouped value heads), K = 64, 60 and 100 (K tiles of 32 with a
// partial last tile), chunk 64 and 32, gates down to -1000 (--mask-p), and
// every I/O dtype. Every run must end with PASS (kda-run exits non-zero on
// FAIL).

// RUN: split-file %s %t
// RUN: kda-translate %t/h1_k64_bf16.mlir --kda-to-bundle --no-cubin -o %t/h1_k64_bf16.kdab
// RUN: kda-translate %t/gva_k60_f16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/gva_k60_f16_chunk32.kdab
// RUN: kda-translate %t/gva_k100_f32.mlir --kda-to-bundle --no-cubin -o %t/gva_k100_f32.kdab

// RUN: kda-run %t/h1_k64_bf16.kdab --cpu --batch 1 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/h1_k64_bf16.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/h1_k64_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 --seed 1 | FileCheck %s
// RUN: kda-run %t/h1_k64_bf16.kdab --cpu --batch 2 --seq-len 500 --heads 1 --value-heads 1 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/gva_k60_f16_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k60_f16_chunk32.kdab --cpu --batch 1 --seq-len 64 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/gva_k60_f16_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k60_f16_chunk32.kdab --cpu --batch 1 --seq-len 500 --heads 2 --value-heads 8 --seed 2 | FileCheck %s
// RUN: kda-run %t/gva_k100_f32.kdab --cpu --batch 1 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/gva_k100_f32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 --gate-norm 0.1 | FileCheck %s
// RUN: kda-run %t/gva_k100_f32.kdab --cpu --batch 1 --seq-len 500 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s

// Shorter than a sub-chunk (no off-diagonal block at all) and one row past
// a sub-chunk.
// RUN: kda-run %t/h1_k64_bf16.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/gva_k100_f32.kdab --cpu --batch 1 --seq-len 17 --heads 2 --value-heads 8 | FileCheck %s

// CHECK: (program=inter_solve) on the CPU build:
// CHECK: {{^}}Aqk_out {{.*}} 0 {{.*}} ok{{$}}
// CHECK: {{^}}M {{.*}} 0 {{.*}} ok{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS

// --check-heads compares a few (sequence, head) pairs.
// RUN: kda-run %t/gva_k60_f16_chunk32.kdab --cpu --batch 2 --seq-len 100 --heads 2 --value-heads 8 --check-heads 3 | FileCheck %s --check-prefix=SOME
// SOME: {{^}}checking 3 of 16 (sequence, head) pairs{{$}}
// SOME: {{^}}M 9600 {{.*}} ok{{$}}
// SOME: {{^}}PASS

// The checker catches a wrong element, in Aqk_out or, when the program
// returns no Aqk_out, in M.
// RUN: not kda-run %t/gva_k100_f32.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --inject-error | FileCheck %s --check-prefixes=WRONG,WRONG-AQK
// RUN: kda-translate %t/m_only.mlir --kda-to-bundle --no-cubin -o %t/m_only.kdab
// RUN: kda-run %t/m_only.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s --check-prefix=MONLY
// RUN: not kda-run %t/m_only.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefixes=WRONG,WRONG-M
// WRONG-AQK: {{^}}Aqk_out {{.*}} FAIL{{$}}
// WRONG-M: {{^}}M {{.*}} FAIL{{$}}
// WRONG: FAIL worst rms_ratio=
// MONLY-NOT: Aqk_out
// MONLY: {{^}}M {{.*}} ok{{$}}
// MONLY-NEXT: {{^}}M_off* {{.*}} ok{{$}}
// MONLY-NEXT: {{^}}PASS

//--- h1_k64_bf16.mlir
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

//--- gva_k60_f16_chunk32.mlir
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

//--- gva_k100_f32.mlir
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

//--- m_only.mlir
// Only M is returned.
func.func @m_only(%q: tensor<?x?x1x64xf32>, %k: tensor<?x?x1x64xf32>,
                  %G: tensor<?x?x1x64xf32>, %beta: tensor<?x?x1xf32>,
                  %Aqk: tensor<?x?x1x64xf32>, %Akkd: tensor<?x?x1x16xf32>)
    -> tensor<?x?x1x64xf32> {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>,
         tensor<?x?x1xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>)
  return %M : tensor<?x?x1x64xf32>
}
