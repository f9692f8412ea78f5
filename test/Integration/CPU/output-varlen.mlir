// kda.output on packed variable-length sequences on the CPU build: h is
// indexed by the global chunk id (chunk_offsets[n] + c); fla's offsets
// 0,15,100,300,1200,2000, empty and one-token sequences, chunk 64 and 32,
// (H, HV) = (1, 1) and (2, 8), K = V = 100 and 128, K = 60 with V = 128,
// bf16 and f32, state_layout kv and vk, gates at -1000.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen_gva_k100_bf16.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k100_bf16.kdab
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,66,130,300 | FileCheck %s
// RUN: kda-translate %t/varlen_h1_k60_v128_f32_vk_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_h1_k60_v128_f32_vk_chunk32.kdab
// RUN: kda-run %t/varlen_h1_k60_v128_f32_vk_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_v128_f32_vk_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,66,130,300 --mask-p 0.5 | FileCheck %s
// RUN: kda-run %t/varlen_h1_k60_v128_f32_vk_chunk32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 1 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: kda-translate %t/varlen_gva_k128_bf16_vk.mlir --kda-to-bundle --no-cubin -o %t/varlen_gva_k128_bf16_vk.kdab
// RUN: kda-run %t/varlen_gva_k128_bf16_vk.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 | FileCheck %s
// RUN: kda-run %t/varlen_gva_k128_bf16_vk.kdab --cpu --batch 1 --seq-len 1 --heads 2 --value-heads 8 --cu-seqlens 0,0,1 | FileCheck %s
// RUN: not kda-run %t/varlen_gva_k100_bf16.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,66,130,300 --inject-error | FileCheck %s --check-prefix=WRONG

// CHECK: (program=output) on the CPU build: {{.*}} cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS
// WRONG: FAIL

//--- varlen_gva_k100_bf16.mlir
func.func @varlen_gva_k100_bf16(%q: tensor<1x?x2x100xbf16>, %G: tensor<1x?x8x100xf32>, %Aqk: tensor<1x?x8x64xbf16>, %h: tensor<1x?x8x100x100xbf16>, %vn: tensor<1x?x8x100xbf16>, %cu: tensor<?xi64>)
    -> tensor<1x?x8x100xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu {scale = 0.1 : f32}
      : (tensor<1x?x2x100xbf16>, tensor<1x?x8x100xf32>, tensor<1x?x8x64xbf16>, tensor<1x?x8x100x100xbf16>, tensor<1x?x8x100xbf16>, tensor<?xi64>)
      -> tensor<1x?x8x100xbf16>
  return %o : tensor<1x?x8x100xbf16>
}

//--- varlen_h1_k60_v128_f32_vk_chunk32.mlir
func.func @varlen_h1_k60_v128_f32_vk_chunk32(%q: tensor<1x?x1x60xf32>, %G: tensor<1x?x1x60xf32>, %Aqk: tensor<1x?x1x32xf32>, %h: tensor<1x?x1x128x60xf32>, %vn: tensor<1x?x1x128xf32>, %cu: tensor<?xi64>)
    -> tensor<1x?x1x128xf32> {
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu {scale = 0.1 : f32, chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x32xf32>, tensor<1x?x1x128x60xf32>, tensor<1x?x1x128xf32>, tensor<?xi64>)
      -> tensor<1x?x1x128xf32>
  return %o : tensor<1x?x1x128xf32>
}

//--- varlen_gva_k128_bf16_vk.mlir
func.func @varlen_gva_k128_bf16_vk(%q: tensor<1x?x2x128xbf16>, %G: tensor<1x?x8x128xf32>, %Aqk: tensor<1x?x8x64xbf16>, %h: tensor<1x?x8x128x128xbf16>, %vn: tensor<1x?x8x128xbf16>, %cu: tensor<?xi64>)
    -> tensor<1x?x8x128xbf16> {
  %o = kda.output %q, %G, %Aqk, %h, %vn cu_seqlens %cu {scale = 0.1 : f32, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x2x128xbf16>, tensor<1x?x8x128xf32>, tensor<1x?x8x64xbf16>, tensor<1x?x8x128x128xbf16>, tensor<1x?x8x128xbf16>, tensor<?xi64>)
      -> tensor<1x?x8x128xbf16>
  return %o : tensor<1x?x8x128xbf16>
}
