// kda.wy_recompute on packed variable-length sequences on the CPU build:
// fla's offsets 0,15,100,300,1200,2000 (tails everywhere), empty and
// one-token sequences, chunk 64 and 32, (H, HV) = (1, 1) and (2, 8),
// K = V = 100 and 128, K = 60 with V = 128, bf16 and f32, gates at -1000.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen_gva_k100_bf16.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k100_bf16.kdab
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-translate %t/varlen_h1_k60_v128_f32_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_h1_k60_v128_f32_chunk32.kdab
// RUN: kda-run %t/varlen_h1_k60_v128_f32_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_v128_f32_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,66,130,300 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_v128_f32_chunk32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 1 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: kda-translate %t/varlen_gva_k128_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k128_bf16_chunk32.kdab
// RUN: kda-run %t/varlen_gva_k128_bf16_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k128_bf16_chunk32.kdab --cpu --batch 1 --seq-len 1 --heads 2 --value-heads 8 --cu-seqlens 0,0,1 | FileCheck %s
// RUN: not kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,66,130,300 --inject-error | FileCheck %s --check-prefix=WRONG

// CHECK: (program=wy_recompute) on the CPU build: {{.*}} cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS
// WRONG: FAIL

//--- varlen_gva_k100_bf16.mlir
func.func @varlen_gva_k100_bf16(%k: tensor<1x?x2x100xbf16>, %v: tensor<1x?x8x100xbf16>, %G: tensor<1x?x8x100xf32>, %beta: tensor<1x?x8xf32>, %M: tensor<1x?x8x64xbf16>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu
      : (tensor<1x?x2x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xf32>, tensor<1x?x8xf32>, tensor<1x?x8x64xbf16>, tensor<?xi64>)
      -> (tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>)
  return %w, %u, %kg : tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>
}

//--- varlen_h1_k60_v128_f32_chunk32.mlir
func.func @varlen_h1_k60_v128_f32_chunk32(%k: tensor<1x?x1x60xf32>, %v: tensor<1x?x1x128xf32>, %G: tensor<1x?x1x60xf32>, %beta: tensor<1x?x1xf32>, %M: tensor<1x?x1x32xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1xf32>, tensor<1x?x1x32xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>)
  return %w, %u, %kg : tensor<1x?x1x60xf32>, tensor<1x?x1x128xf32>, tensor<1x?x1x60xf32>
}

//--- varlen_gva_k128_bf16_chunk32.mlir
func.func @varlen_gva_k128_bf16_chunk32(%k: tensor<1x?x2x128xbf16>, %v: tensor<1x?x8x128xbf16>, %G: tensor<1x?x8x128xf32>, %beta: tensor<1x?x8xf32>, %M: tensor<1x?x8x32xbf16>, %cu: tensor<?xi64>)
    -> (tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xf32>, tensor<1x?x8xf32>, tensor<1x?x8x32xbf16>, tensor<?xi64>)
      -> (tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>)
  return %w, %u, %kg : tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>
}
