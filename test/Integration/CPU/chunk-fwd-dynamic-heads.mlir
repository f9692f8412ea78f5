// One bundle of the whole forward with dynamic batch and head counts (only
// K and V are compiled in) serves any H and HV with HV % H == 0, checked
// against the float64 per-token recurrence: no grouping, grouped value heads
// and odd head counts, fixed length and varlen with a vk initial and final
// state; and a head count that is not a multiple is rejected before
// anything runs.

// RUN: split-file %s %t
// RUN: kda-translate %t/dyn.mlir --kda-to-bundle --no-cubin -o %t/dyn.kdab
// RUN: kda-translate %t/dyn_varlen.mlir --kda-to-bundle --no-cubin -o %t/dyn_varlen.kdab
// RUN: kda-run %t/dyn.kdab --cpu --batch 2 --seq-len 130 --heads 1 --value-heads 1 | FileCheck %s
// RUN: kda-run %t/dyn.kdab --cpu --batch 2 --seq-len 130 --heads 2 --value-heads 8 | FileCheck %s
// RUN: kda-run %t/dyn.kdab --cpu --batch 1 --seq-len 65 --heads 3 --value-heads 3 | FileCheck %s
// RUN: kda-run %t/dyn_varlen.kdab --cpu --batch 1 --seq-len 300 --heads 2 --value-heads 4 --cu-seqlens 0,0,1,64,65,300 | FileCheck %s
// RUN: kda-run %t/dyn_varlen.kdab --cpu --batch 1 --seq-len 160 --heads 5 --value-heads 5 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: not kda-run %t/dyn.kdab --cpu --batch 1 --seq-len 64 --heads 3 --value-heads 4 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: (program=chunk_fwd) on the CPU build
// CHECK-NOT: FAIL
// CHECK: PASS
// BAD: --heads 3 does not divide --value-heads 4

//--- dyn.mlir
// l2norm, beta sigmoid and the softplus gate in the kernel; bf16.
func.func @dyn(%q: tensor<?x?x?x64xbf16>, %k: tensor<?x?x?x64xbf16>, %v: tensor<?x?x?x64xbf16>,
               %g: tensor<?x?x?x64xbf16>, %beta: tensor<?x?x?xbf16>, %A: tensor<?xf32>,
               %dt: tensor<?x64xf32>, %h0: tensor<?x?x64x64xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta a_log %A dt_bias %dt initial_state %h0
      {use_qk_l2norm, use_beta_sigmoid, gate_mode = #kda<gate_mode softplus>}
      : (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
         tensor<?x?x?x64xbf16>, tensor<?x?x?xbf16>, tensor<?xf32>, tensor<?x64xf32>,
         tensor<?x?x64x64xf32>)
      -> (tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>)
  return %o, %ht : tensor<?x?x?x64xbf16>, tensor<?x?x64x64xf32>
}
//--- dyn_varlen.mlir
// Varlen, f16, K != V, a vk initial and final state, chunk 32.
func.func @dyn_varlen(%q: tensor<1x?x?x64xf16>, %k: tensor<1x?x?x64xf16>, %v: tensor<1x?x?x32xf16>,
                      %g: tensor<1x?x?x64xf32>, %beta: tensor<1x?x?xf32>,
                      %h0: tensor<?x?x32x64xf32>, %cu: tensor<?xi64>)
    -> (tensor<1x?x?x32xf16>, tensor<?x?x32x64xf32>) {
  %o, %ht = kda.chunk_fwd %q, %k, %v, %g, %beta initial_state %h0 cu_seqlens %cu
      {chunk_size = 32 : i64, state_layout = #kda<state_layout vk>}
      : (tensor<1x?x?x64xf16>, tensor<1x?x?x64xf16>, tensor<1x?x?x32xf16>,
         tensor<1x?x?x64xf32>, tensor<1x?x?xf32>, tensor<?x?x32x64xf32>, tensor<?xi64>)
      -> (tensor<1x?x?x32xf16>, tensor<?x?x32x64xf32>)
  return %o, %ht : tensor<1x?x?x32xf16>, tensor<?x?x32x64xf32>
}
