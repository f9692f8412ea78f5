// kda.intra_diag on packed variable-length sequences on the CPU build:
// fla's varlen offsets 0,15,100,300,1200,2000 (a sequence shorter than a
// sub-chunk, tails everywhere), chunk 64 and 32, (H, HV) = (2, 8) and
// (1, 1), K = 100, 128 and 60, safe_gate on and off, gates at -1000 on the
// exact path; and empty and one-token sequences.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen_gva_k100_bf16.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k100_bf16.kdab
// RUN: kda-translate %t/varlen_h1_k60_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_h1_k60_f32_chunk32.kdab
// RUN: kda-translate %t/varlen_safe_gva_k128_bf16.mlir --kda-to-bundle --no-cubin -o %t/varlen_safe_gva_k128_bf16.kdab
// RUN: kda-translate %t/varlen_safe_h1_k60_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_safe_h1_k60_f32_chunk32.kdab
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.5 --check-heads 5 | FileCheck %s --check-prefixes=CHECK,SOME
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 1 --cu-seqlens 0,31,96,160 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-translate %t/varlen_h1_k60_f32_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_h1_k60_f32_chunk32.kdab
// RUN: kda-translate %t/varlen_gva_k100_bf16.mlir --kda-to-bundle --no-cubin --exact-diagonal-factoring -o %t/factoring_gva_k100_bf16.kdab
// RUN: kda-run %t/factoring_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,9,64,65,66,130,300 | FileCheck %s
// RUN: kda-run %t/factoring_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,9,64,65,66,130,300 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/factoring_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-translate %t/varlen_h1_k60_f32_chunk32.mlir --kda-to-bundle --no-cubin --exact-diagonal-rows -o %t/rows_h1_k60_f32_chunk32.kdab
// RUN: kda-run %t/rows_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,9,64,65,66,130,300 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_safe_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_safe_gva_k128_bf16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --cu-seqlens 0,1,65 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_safe_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_safe_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s

// CHECK: (program=intra_diag) on the CPU build: {{.*}} cu_seqlens=
// SOME: {{^}}checking 5 of 40 (sequence, head) pairs{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS

//--- varlen_gva_k100_bf16.mlir
func.func @varlen_gva_k100_bf16(%q: tensor<1x?x2x100xbf16>, %k: tensor<1x?x2x100xbf16>,
                                %G: tensor<1x?x8x100xf32>, %beta: tensor<1x?x8xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {scale = 0.1 : f32}
      : (tensor<1x?x2x100xbf16>, tensor<1x?x2x100xbf16>, tensor<1x?x8x100xf32>,
         tensor<1x?x8xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>
}

//--- varlen_h1_k60_f32_chunk32.mlir
func.func @varlen_h1_k60_f32_chunk32(%q: tensor<1x?x1x60xf32>, %k: tensor<1x?x1x60xf32>,
                                     %G: tensor<1x?x1x60xf32>, %beta: tensor<1x?x1xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {scale = 0.125 : f32, chunk_size = 32 : i64}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>,
         tensor<1x?x1xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>
}

//--- varlen_safe_gva_k128_bf16.mlir
func.func @varlen_safe_gva_k128_bf16(%q: tensor<1x?x2x128xbf16>, %k: tensor<1x?x2x128xbf16>,
                                     %G: tensor<1x?x8x128xf32>, %beta: tensor<1x?x8xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {scale = 0.125 : f32, safe_gate}
      : (tensor<1x?x2x128xbf16>, tensor<1x?x2x128xbf16>, tensor<1x?x8x128xf32>,
         tensor<1x?x8xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>
}

//--- varlen_safe_h1_k60_f32_chunk32.mlir
func.func @varlen_safe_h1_k60_f32_chunk32(%q: tensor<1x?x1x60xf32>, %k: tensor<1x?x1x60xf32>,
                                          %G: tensor<1x?x1x60xf32>, %beta: tensor<1x?x1xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta cu_seqlens %cu
      {scale = 0.125 : f32, chunk_size = 32 : i64, safe_gate}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>,
         tensor<1x?x1xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>)
  return %Aqk, %Akkd : tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>
}
