// The whole forward, kda.chunk_fwd split into its stages (the state scan
// among them), on the CPU build against the float64 per-token recurrence:
// default flags at B = 2, T = 200; and varlen with empty and one-token
// sequences, an initial and a final state in layout vk, K != V, f16,
// chunk 32.

// RUN: split-file %s %t
// RUN: kda-translate %t/fwd.mlir --kda-to-bundle --no-cubin -o %t/fwd.kdab
// RUN: kda-translate %t/fwd_states.mlir --kda-to-bundle --no-cubin -o %t/fwd_states.kdab
// RUN: kda-run %t/fwd.kdab --cpu --batch 2 --seq-len 200 --heads 4 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/fwd_states.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,1,64,65,130,300 | FileCheck %s --check-prefixes=CHECK,STATES
// RUN: kda-run %t/fwd_states.kdab --cpu --batch 1 --seq-len 2000 --heads 2 --value-heads 4 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s --check-prefixes=CHECK,STATES

// CHECK: (program=chunk_fwd) on the CPU build:
// CHECK: {{^}}o {{.*}} ok{{$}}
// STATES: {{^}}final_state {{.*}} ok{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS

//--- fwd.mlir
func.func @fwd(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>,
               %v: tensor<2x?x8x128xbf16>, %g: tensor<2x?x8x64xf32>,
               %beta: tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}

//--- fwd_states.mlir
func.func @fwd_states(%q: tensor<1x?x2x100xf16>, %k: tensor<1x?x2x100xf16>,
                      %v: tensor<1x?x4x60xf16>, %g: tensor<1x?x4x100xf32>,
                      %beta: tensor<1x?x4xf32>, %h0: tensor<?x4x60x100xf32>,
                      %cu: tensor<?xi64>)
    -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x2x100xf16>, tensor<1x?x2x100xf16>, tensor<1x?x4x60xf16>,
         tensor<1x?x4x100xf32>, tensor<1x?x4xf32>, tensor<?x4x60x100xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>)
  return %o, %ht : tensor<1x?x4x60xf16>, tensor<?x4x60x100xf32>
}
