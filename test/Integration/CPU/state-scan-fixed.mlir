// kda.state_scan on the CPU build, fixed length: T = 1, 63, 64, 65 and 300
// (tails, one-token sequences), B = 2, one and 8 value heads (q/k heads 1
// or 2 for the inputs), K = V = 60/100/128 and K != V, chunk 64 and 32,
// with and without initial and final states, state layouts kv and vk,
// bf16/f16/f32 I/O (and f32 u/v_new beside bf16 kg/w/h); gates at -1000.

// RUN: split-file %s %t
// RUN: kda-translate %t/kv_k128_bf16_h0_ht.mlir --kda-to-bundle --no-cubin -o %t/kv_k128_bf16_h0_ht.kdab
// RUN: kda-translate %t/vk_k60_v100_f32_ht_chunk32.mlir --kda-to-bundle --no-cubin -o %t/vk_k60_v100_f32_ht_chunk32.kdab
// RUN: kda-translate %t/kv_k100_v60_f16_h0_chunk32.mlir --kda-to-bundle --no-cubin -o %t/kv_k100_v60_f16_h0_chunk32.kdab
// RUN: kda-translate %t/vk_k60_bf16_uf32_h0_ht.mlir --kda-to-bundle --no-cubin -o %t/vk_k60_bf16_uf32_h0_ht.kdab
// RUN: kda-translate %t/kv_k100_f32.mlir --kda-to-bundle --no-cubin -o %t/kv_k100_f32.kdab
// RUN: kda-translate %t/vk_k128_v60_bf16_h0_ht_chunk32.mlir --kda-to-bundle --no-cubin -o %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/kv_k100_v60_f16_h0_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_v60_f16_h0_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_v60_f16_h0_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_v60_f16_h0_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_v60_f16_h0_chunk32.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/vk_k60_bf16_uf32_h0_ht.kdab --cpu --batch 2 --seq-len 1 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_bf16_uf32_h0_ht.kdab --cpu --batch 2 --seq-len 63 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_bf16_uf32_h0_ht.kdab --cpu --batch 2 --seq-len 64 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_bf16_uf32_h0_ht.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/vk_k60_bf16_uf32_h0_ht.kdab --cpu --batch 2 --seq-len 300 --heads 1 --value-heads 1 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/kv_k100_f32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_f32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_f32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_f32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/kv_k100_f32.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab --cpu --batch 2 --seq-len 1 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab --cpu --batch 2 --seq-len 63 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab --cpu --batch 2 --seq-len 64 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/vk_k128_v60_bf16_h0_ht_chunk32.kdab --cpu --batch 2 --seq-len 300 --heads 2 --value-heads 8 --mask-p 0.1 | FileCheck %s

// CHECK: (program=state_scan) on the CPU build:
// CHECK-NOT: FAIL
// CHECK: PASS

// The final state is compared too, and a sampled check picks pairs.
// RUN: kda-run %t/kv_k128_bf16_h0_ht.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 8 --check-heads 3 | FileCheck %s --check-prefix=SOME
// SOME: {{^}}checking 3 of 16 (sequence, head) pairs{{$}}
// SOME: {{^}}h {{.*}} ok{{$}}
// SOME-NEXT: {{^}}v_new {{.*}} ok{{$}}
// SOME-NEXT: {{^}}final_state {{.*}} ok{{$}}
// SOME-NEXT: {{^}}PASS

// The example at the target head count and dims (HV = 96, K = V = 128).
// RUN: kda-translate %kda_src_root/examples/state_scan.mlir --kda-to-bundle --no-cubin -o %t/example.kdab
// RUN: kda-run %t/example.kdab --cpu --batch 1 --seq-len 200 --heads 96 --value-heads 96 --check-heads 4 | FileCheck %s

// The checker catches a wrong element.
// RUN: not kda-run %t/vk_k60_v100_f32_ht_chunk32.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 1 --inject-error | FileCheck %s --check-prefix=WRONG
// WRONG: {{^}}v_new {{.*}} FAIL{{$}}
// WRONG: FAIL worst rms_ratio=

//--- kv_k128_bf16_h0_ht.mlir
func.func @kv_k128_bf16_h0_ht(%kg: tensor<?x?x8x128xbf16>,
    %w: tensor<?x?x8x128xbf16>,
    %u: tensor<?x?x8x128xbf16>,
    %G: tensor<?x?x8x128xf32>,
    %h0: tensor<?x8x128x128xf32>)
    -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf32>, tensor<?x8x128x128xf32>)
      -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>)
  return %h, %vn, %ht : tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x8x128x128xf32>
}

//--- vk_k60_v100_f32_ht_chunk32.mlir
func.func @vk_k60_v100_f32_ht_chunk32(%kg: tensor<?x?x1x60xf32>,
    %w: tensor<?x?x1x60xf32>,
    %u: tensor<?x?x1x100xf32>,
    %G: tensor<?x?x1x60xf32>)
    -> (tensor<?x?x1x100x60xf32>, tensor<?x?x1x100xf32>, tensor<?x1x100x60xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x100xf32>, tensor<?x?x1x60xf32>)
      -> (tensor<?x?x1x100x60xf32>, tensor<?x?x1x100xf32>, tensor<?x1x100x60xf32>)
  return %h, %vn, %ht : tensor<?x?x1x100x60xf32>, tensor<?x?x1x100xf32>, tensor<?x1x100x60xf32>
}

//--- kv_k100_v60_f16_h0_chunk32.mlir
func.func @kv_k100_v60_f16_h0_chunk32(%kg: tensor<?x?x8x100xf16>,
    %w: tensor<?x?x8x100xf16>,
    %u: tensor<?x?x8x60xf16>,
    %G: tensor<?x?x8x100xf32>,
    %h0: tensor<?x8x100x60xf32>)
    -> (tensor<?x?x8x100x60xf16>, tensor<?x?x8x60xf16>) {
  %h, %vn = kda.state_scan %kg, %w, %u, %G initial_state %h0 {chunk_size = 32 : i64}
      : (tensor<?x?x8x100xf16>, tensor<?x?x8x100xf16>, tensor<?x?x8x60xf16>, tensor<?x?x8x100xf32>, tensor<?x8x100x60xf32>)
      -> (tensor<?x?x8x100x60xf16>, tensor<?x?x8x60xf16>)
  return %h, %vn : tensor<?x?x8x100x60xf16>, tensor<?x?x8x60xf16>
}

//--- vk_k60_bf16_uf32_h0_ht.mlir
func.func @vk_k60_bf16_uf32_h0_ht(%kg: tensor<?x?x1x60xbf16>,
    %w: tensor<?x?x1x60xbf16>,
    %u: tensor<?x?x1x60xf32>,
    %G: tensor<?x?x1x60xf32>,
    %h0: tensor<?x1x60x60xf32>)
    -> (tensor<?x?x1x60x60xbf16>, tensor<?x?x1x60xf32>, tensor<?x1x60x60xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 {state_layout = #kda<state_layout vk>}
      : (tensor<?x?x1x60xbf16>, tensor<?x?x1x60xbf16>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x1x60x60xf32>)
      -> (tensor<?x?x1x60x60xbf16>, tensor<?x?x1x60xf32>, tensor<?x1x60x60xf32>)
  return %h, %vn, %ht : tensor<?x?x1x60x60xbf16>, tensor<?x?x1x60xf32>, tensor<?x1x60x60xf32>
}

//--- kv_k100_f32.mlir
func.func @kv_k100_f32(%kg: tensor<?x?x8x100xf32>,
    %w: tensor<?x?x8x100xf32>,
    %u: tensor<?x?x8x100xf32>,
    %G: tensor<?x?x8x100xf32>)
    -> (tensor<?x?x8x100x100xf32>, tensor<?x?x8x100xf32>) {
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<?x?x8x100xf32>, tensor<?x?x8x100xf32>, tensor<?x?x8x100xf32>, tensor<?x?x8x100xf32>)
      -> (tensor<?x?x8x100x100xf32>, tensor<?x?x8x100xf32>)
  return %h, %vn : tensor<?x?x8x100x100xf32>, tensor<?x?x8x100xf32>
}

//--- vk_k128_v60_bf16_h0_ht_chunk32.mlir
func.func @vk_k128_v60_bf16_h0_ht_chunk32(%kg: tensor<?x?x8x128xbf16>,
    %w: tensor<?x?x8x128xbf16>,
    %u: tensor<?x?x8x60xbf16>,
    %G: tensor<?x?x8x128xf32>,
    %h0: tensor<?x8x60x128xf32>)
    -> (tensor<?x?x8x60x128xbf16>, tensor<?x?x8x60xbf16>, tensor<?x8x60x128xf32>) {
  %h, %vn, %ht = kda.state_scan %kg, %w, %u, %G initial_state %h0 {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x60xbf16>, tensor<?x?x8x128xf32>, tensor<?x8x60x128xf32>)
      -> (tensor<?x?x8x60x128xbf16>, tensor<?x?x8x60xbf16>, tensor<?x8x60x128xf32>)
  return %h, %vn, %ht : tensor<?x?x8x60x128xbf16>, tensor<?x?x8x60xbf16>, tensor<?x8x60x128xf32>
}
