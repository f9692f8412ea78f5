// kda.inter_solve on packed variable-length sequences on the CPU build:
// fla's varlen offsets 0,15,100,300,1200,2000 (a sequence shorter than a
// sub-chunk, tails everywhere), chunk 64, 32 and 16 (one sub-chunk: no
// off-diagonal blocks, M is the diagonal block's inverse), both head layouts,
// K = 100 and 60, safe_gate on and off, gates at -1000; and empty and
// one-token sequences.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen_gva_k100_bf16.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k100_bf16.kdab
// RUN: kda-translate %t/varlen_h1_k60_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_h1_k60_f32_chunk32.kdab
// RUN: kda-translate %t/varlen_safe_gva_k64_f16.mlir --kda-to-bundle --no-cubin -o %t/varlen_safe_gva_k64_f16.kdab
// RUN: kda-translate %t/varlen_gva_k60_bf16_chunk16.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k60_bf16_chunk16.kdab
// RUN: kda-translate %t/varlen_safe_k64_f16_chunk16.mlir --kda-to-bundle --no-cubin -o %t/varlen_safe_k64_f16_chunk16.kdab
// RUN: kda-run %t/varlen_gva_k60_bf16_chunk16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 4 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k60_bf16_chunk16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_safe_k64_f16_chunk16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 2 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 1 --cu-seqlens 0,31,96,160 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_safe_gva_k64_f16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_safe_gva_k64_f16.kdab --cpu --batch 1 --seq-len 65 --heads 2 --value-heads 8 --cu-seqlens 0,1,65 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_safe_gva_k64_f16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --check-heads 5 | FileCheck %s --check-prefixes=CHECK,SOME

// CHECK: (program=inter_solve) on the CPU build: {{.*}} cu_seqlens=
// SOME: {{^}}checking 5 of 40 (sequence, head) pairs{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS

//--- varlen_gva_k100_bf16.mlir
func.func @varlen_gva_k100_bf16(%q: tensor<1x?x2x100xbf16>, %k: tensor<1x?x2x100xbf16>,
                                %G: tensor<1x?x8x100xf32>, %beta: tensor<1x?x8xf32>,
                                %Aqk: tensor<1x?x8x64xbf16>, %Akkd: tensor<1x?x8x16xf32>,
                                %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.1 : f32}
      : (tensor<1x?x2x100xbf16>, tensor<1x?x2x100xbf16>, tensor<1x?x8x100xf32>,
         tensor<1x?x8xf32>, tensor<1x?x8x64xbf16>, tensor<1x?x8x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x8x64xbf16>, tensor<1x?x8x64xbf16>
}

//--- varlen_h1_k60_f32_chunk32.mlir
func.func @varlen_h1_k60_f32_chunk32(%q: tensor<1x?x1x60xf32>, %k: tensor<1x?x1x60xf32>,
                                     %G: tensor<1x?x1x60xf32>, %beta: tensor<1x?x1xf32>,
                                     %Aqk: tensor<1x?x1x32xf32>, %Akkd: tensor<1x?x1x16xf32>,
                                     %cu: tensor<?xi64>)
    -> (tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.125 : f32, chunk_size = 32 : i64, precision = #kda<precision tf32x3>}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>,
         tensor<1x?x1xf32>, tensor<1x?x1x32xf32>, tensor<1x?x1x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>)
  return %Aqk_out, %M : tensor<1x?x1x32xf32>, tensor<1x?x1x32xf32>
}

//--- varlen_safe_gva_k64_f16.mlir
func.func @varlen_safe_gva_k64_f16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x2x64xf16>,
                                   %G: tensor<1x?x8x64xf32>, %beta: tensor<1x?x8xf32>,
                                   %Aqk: tensor<1x?x8x64xf16>, %Akkd: tensor<1x?x8x16xf32>,
                                   %cu: tensor<?xi64>)
    -> (tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.125 : f32, safe_gate, precision = #kda<precision ieee>}
      : (tensor<1x?x2x64xf16>, tensor<1x?x2x64xf16>, tensor<1x?x8x64xf32>,
         tensor<1x?x8xf32>, tensor<1x?x8x64xf16>, tensor<1x?x8x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>)
  return %Aqk_out, %M : tensor<1x?x8x64xf16>, tensor<1x?x8x64xf16>
}

//--- varlen_gva_k60_bf16_chunk16.mlir
func.func @varlen_gva_k60_bf16_chunk16(%q: tensor<1x?x2x60xbf16>, %k: tensor<1x?x2x60xbf16>,
                                       %G: tensor<1x?x4x60xf32>, %beta: tensor<1x?x4xf32>,
                                       %Aqk: tensor<1x?x4x16xbf16>, %Akkd: tensor<1x?x4x16xf32>,
                                       %cu: tensor<?xi64>)
    -> (tensor<1x?x4x16xbf16>, tensor<1x?x4x16xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.125 : f32, chunk_size = 16 : i64}
      : (tensor<1x?x2x60xbf16>, tensor<1x?x2x60xbf16>, tensor<1x?x4x60xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x16xbf16>, tensor<1x?x4x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x16xbf16>, tensor<1x?x4x16xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x16xbf16>, tensor<1x?x4x16xbf16>
}

//--- varlen_safe_k64_f16_chunk16.mlir
func.func @varlen_safe_k64_f16_chunk16(%q: tensor<1x?x2x64xf16>, %k: tensor<1x?x2x64xf16>,
                                       %G: tensor<1x?x2x64xf32>, %beta: tensor<1x?x2xf32>,
                                       %Aqk: tensor<1x?x2x16xf16>, %Akkd: tensor<1x?x2x16xf32>,
                                       %cu: tensor<?xi64>)
    -> (tensor<1x?x2x16xf16>, tensor<1x?x2x16xf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.125 : f32, safe_gate, chunk_size = 16 : i64}
      : (tensor<1x?x2x64xf16>, tensor<1x?x2x64xf16>, tensor<1x?x2x64xf32>,
         tensor<1x?x2xf32>, tensor<1x?x2x16xf16>, tensor<1x?x2x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x16xf16>, tensor<1x?x2x16xf16>)
  return %Aqk_out, %M : tensor<1x?x2x16xf16>, tensor<1x?x2x16xf16>
}
