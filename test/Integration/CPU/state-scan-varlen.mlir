// kda.state_scan on packed variable-length sequences on the CPU build:
// fla's varlen offsets 0,15,100,300,1200,2000 and offsets with empty and
// one-token sequences (0,0,1,1,64,65,130,300: an empty sequence keeps its
// initial state and owns no h slot), chunk 64 and 32, state layouts kv and
// vk, one and 8 value heads, with and without initial and final states,
// K = V = 128/100 and K != V, bf16/f16/f32; gates at -1000.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen_kv_k128_bf16_h0_ht.mlir --kda-to-bundle --no-cubin -o %t/varlen_kv_k128_bf16_h0_ht.kdab
// RUN: kda-translate %t/varlen_vk_k60_v100_f32_ht_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_vk_k60_v100_f32_ht_chunk32.kdab
// RUN: kda-translate %t/varlen_vk_k100_bf16_h0_chunk32.mlir --kda-to-bundle --no-cubin -o %t/varlen_vk_k100_bf16_h0_chunk32.kdab
// RUN: kda-translate %t/varlen_kv_k60_v128_f16_h0_ht.mlir --kda-to-bundle --no-cubin -o %t/varlen_kv_k60_v128_f16_h0_ht.kdab
// RUN: kda-run %t/varlen_kv_k128_bf16_h0_ht.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_kv_k128_bf16_h0_ht.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_vk_k100_bf16_h0_chunk32.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 8 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_vk_k100_bf16_h0_chunk32.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 8 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s
// RUN: kda-run %t/varlen_kv_k60_v128_f16_h0_ht.kdab --cpu --batch 1 --seq-len 2000 --heads 1 --value-heads 1 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen_kv_k60_v128_f16_h0_ht.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 1 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s

// h and final_state that the function does not return are workspaces
// (sized floor(T / BT) + N and N): only v_new is an output.
// RUN: kda-translate %t/varlen_v_new_only.mlir --kda-to-bundle --no-cubin -o %t/varlen_v_new_only.kdab
// RUN: kda-run %t/varlen_v_new_only.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 2 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefix=VONLY
// VONLY: (program=state_scan) on the CPU build: {{.*}} initial_state=0 final_state=0 cu_seqlens=
// VONLY-NOT: {{^}}h {{.*}}
// VONLY: {{^}}v_new {{.*}} ok{{$}}
// VONLY-NEXT: PASS

// CHECK: (program=state_scan) on the CPU build: {{.*}} cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS

//--- varlen_kv_k128_bf16_h0_ht.mlir
func.func @varlen_kv_k128_bf16_h0_ht(%kg: tensor<1x?x8x128xbf16>,
    %w: tensor<1x?x8x128xbf16>,
    %u: tensor<1x?x8x128xbf16>,
    %G: tensor<1x?x8x128xf32>,
    %h0: tensor<?x8x128x128xf32>,
    %cu: tensor<?xi64>)
    -> (tensor<1x?x8x128x128xbf16>, tensor<1x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 cu_seqlens %cu
      : (tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xf32>, tensor<?x8x128x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x128x128xbf16>, tensor<1x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %h, %vn, %ht : tensor<1x?x8x128x128xbf16>, tensor<1x?x8x128xbf16>, tensor<?x8x128x128xf32>
}

//--- varlen_vk_k60_v100_f32_ht_chunk32.mlir
func.func @varlen_vk_k60_v100_f32_ht_chunk32(%kg: tensor<1x?x1x60xf32>,
    %w: tensor<1x?x1x60xf32>,
    %u: tensor<1x?x1x100xf32>,
    %G: tensor<1x?x1x60xf32>,
    %cu: tensor<?xi64>)
    -> (tensor<1x?x1x100x60xf32>, tensor<1x?x1x100xf32>, tensor<?x1x100x60xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G cu_seqlens %cu {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x1x60xf32>, tensor<1x?x1x60xf32>, tensor<1x?x1x100xf32>, tensor<1x?x1x60xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x100x60xf32>, tensor<1x?x1x100xf32>, tensor<?x1x100x60xf32>)
  return %h, %vn, %ht : tensor<1x?x1x100x60xf32>, tensor<1x?x1x100xf32>, tensor<?x1x100x60xf32>
}

//--- varlen_vk_k100_bf16_h0_chunk32.mlir
func.func @varlen_vk_k100_bf16_h0_chunk32(%kg: tensor<1x?x8x100xbf16>,
    %w: tensor<1x?x8x100xbf16>,
    %u: tensor<1x?x8x100xbf16>,
    %G: tensor<1x?x8x100xf32>,
    %h0: tensor<?x8x100x100xf32>,
    %cu: tensor<?xi64>)
    -> (tensor<1x?x8x100x100xbf16>, tensor<1x?x8x100xbf16>) {
  %h, %vn = kda.state_scan %kg, %w, %u, %G initial_state %h0 cu_seqlens %cu {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xbf16>, tensor<1x?x8x100xf32>, tensor<?x8x100x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x100x100xbf16>, tensor<1x?x8x100xbf16>)
  return %h, %vn : tensor<1x?x8x100x100xbf16>, tensor<1x?x8x100xbf16>
}

//--- varlen_kv_k60_v128_f16_h0_ht.mlir
func.func @varlen_kv_k60_v128_f16_h0_ht(%kg: tensor<1x?x1x60xf16>,
    %w: tensor<1x?x1x60xf16>,
    %u: tensor<1x?x1x128xf16>,
    %G: tensor<1x?x1x60xf32>,
    %h0: tensor<?x1x60x128xf32>,
    %cu: tensor<?xi64>)
    -> (tensor<1x?x1x60x128xf16>, tensor<1x?x1x128xf16>, tensor<?x1x60x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 cu_seqlens %cu
      : (tensor<1x?x1x60xf16>, tensor<1x?x1x60xf16>, tensor<1x?x1x128xf16>, tensor<1x?x1x60xf32>, tensor<?x1x60x128xf32>, tensor<?xi64>)
      -> (tensor<1x?x1x60x128xf16>, tensor<1x?x1x128xf16>, tensor<?x1x60x128xf32>)
  return %h, %vn, %ht : tensor<1x?x1x60x128xf16>, tensor<1x?x1x128xf16>, tensor<?x1x60x128xf32>
}

//--- varlen_v_new_only.mlir
func.func @varlen_v_new_only(%kg: tensor<1x?x2x60xbf16>, %w: tensor<1x?x2x60xbf16>, %u: tensor<1x?x2x100xbf16>,
                             %G: tensor<1x?x2x60xf32>, %cu: tensor<?xi64>) -> tensor<1x?x2x100xbf16> {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G cu_seqlens %cu
      : (tensor<1x?x2x60xbf16>, tensor<1x?x2x60xbf16>, tensor<1x?x2x100xbf16>, tensor<1x?x2x60xf32>, tensor<?xi64>)
      -> (tensor<1x?x2x60x100xbf16>, tensor<1x?x2x100xbf16>, tensor<?x2x60x100xf32>)
  return %vn : tensor<1x?x2x100xbf16>
}
