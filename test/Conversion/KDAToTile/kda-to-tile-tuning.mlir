// RUN: kda-opt %s --convert-kda-to-tile | FileCheck %s --check-prefix=TUNED
// RUN: kda-opt %s --convert-kda-to-tile=mapping=shared-memory | FileCheck %s --check-prefix=SHARED
// RUN: kda-opt %s --convert-kda-to-tile=mapping=registers | FileCheck %s --check-prefix=REGS
// RUN: kda-opt %s --convert-kda-to-tile=mapping=recurrences-on-registers | FileCheck %s --check-prefix=RECUR
// RUN: kda-opt %s --convert-kda-to-tile="mapping=registers block-k=64" | FileCheck %s --check-prefix=BLOCKK
// RUN: not kda-opt %s --convert-kda-to-tile=mapping=simt 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: kda-opt %s --convert-kda-to-tile=fusable-chunk-stages | FileCheck %s --check-prefix=FUSABLE
// RUN: kda-opt %s --convert-kda-to-tile=tuning=sm_90 | FileCheck %s --check-prefix=TUNED
// RUN: kda-opt %s --convert-kda-to-tile=tuning=test-uniform | FileCheck %s --check-prefix=UNIFORM
// RUN: not kda-opt %s --convert-kda-to-tile=tuning=sm_100 2>&1 | FileCheck %s --check-prefix=NOTARGET

// Each kernel's launch shape comes from the target's kernel tuning, for the
// mapping its tiles will get, and is recorded as its tile.tuning. By default
// (mapping=tuned) each kernel takes the mapping the tuning prefers for it
// and its shapes: registers for inter_solve with or without safe_gate, with
// any batch and head counts, except varlen with static head counts (it asks
// for them with mapping = registers); shared memory for that inter_solve
// and for every other kernel. The inter_solve kernel tiles K by 32 columns
// on the shared-memory mapping and by 16 on registers (block_k); block-k,
// when set, overrides both. On registers its register cap is 168 instead of
// 128 (its speculated loads need them); both mappings speculate its loads
// out of the sub-chunk branches. The tuning also asks for inter_solve's
// global addresses as a program base plus per-access offsets
// (hoist_addresses), not for the gate kernel's.

// TUNED-LABEL: func.func @exact_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// TUNED: tile.load %arg0{{.*}} -> tensor<16x16xbf16>
// TUNED-LABEL: func.func @safe_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// TUNED: tile.load %arg0{{.*}} -> tensor<16x16xbf16>
// TUNED-LABEL: func.func @safe_dynamic_batch_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// TUNED-LABEL: func.func @dynamic_heads_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// TUNED-LABEL: func.func @varlen_dynamic_heads_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// TUNED-LABEL: func.func @safe_varlen_inter_solve_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>}
// TUNED-LABEL: func.func @gate_gate_cumsum_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 64>} {

// SHARED-LABEL: func.func @safe_inter_solve_0
// SHARED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>}
// SHARED: tile.load %arg0{{.*}} -> tensor<16x32xbf16>

// REGS-LABEL: func.func @exact_inter_solve_0
// REGS-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// REGS: tile.load %arg0{{.*}} -> tensor<16x16xbf16>
// REGS-LABEL: func.func @gate_gate_cumsum_0
// REGS-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 64, mapping = registers>}

// BLOCKK-LABEL: func.func @exact_inter_solve_0
// BLOCKK-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 64, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// BLOCKK: tile.load %arg0{{.*}} -> tensor<16x64xbf16>

// Built for one fused kernel (fusable-chunk-stages), the per-chunk stages
// take their shared-memory tuning, the mapping of the fused kernel.
// FUSABLE-LABEL: func.func @exact_inter_solve_0
// FUSABLE-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>}
// FUSABLE-LABEL: func.func @gate_gate_cumsum_0
// FUSABLE-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 64>} {

// The recurrent form's chunk recurrence prefers registers: 4 warps, at most
// 168 registers (3 blocks per SM), its loads issued at the chunk's start
// (speculate_loads) and one chunk ahead (stages = 2), addresses as a base
// plus offsets; where it was measured: K from 65 to 128 (state tiles of
// 128 rows) and 16-bit operands. With K = 64, or f32 operands, it stays on
// shared memory with the fused state scan's tuning, as the state scan does
// on either mapping.
// TUNED-LABEL: func.func @recurrence_chunk_recurrence_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 232, max_live_bytes = 32768, block_v = 32, speculate_loads = true, hoist_addresses = true, mapping = registers, stages = 2>}
// TUNED-LABEL: func.func @scan_state_scan_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 128, block_v = 32>}
// TUNED-LABEL: func.func @recurrence_k64_chunk_recurrence_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 32768, block_v = 32>}
// TUNED-LABEL: func.func @recurrence_f32_chunk_recurrence_0
// TUNED-SAME: tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 32768, block_v = 32>}
// SHARED-LABEL: func.func @recurrence_chunk_recurrence_0
// SHARED-SAME: tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 32768, block_v = 32>}

// mapping=recurrences-on-registers (kda-translate --register-recurrences):
// the recurrences with their register tuning, every other kernel on shared
// memory.
// RECUR-LABEL: func.func @exact_inter_solve_0
// RECUR-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>}
// RECUR-LABEL: func.func @recurrence_chunk_recurrence_0
// RECUR-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 232, max_live_bytes = 32768, block_v = 32, speculate_loads = true, hoist_addresses = true, mapping = registers, stages = 2>}
// RECUR-LABEL: func.func @scan_state_scan_0
// RECUR-SAME: tile.tuning = #tile.tuning<threads = 128, block_v = 32, mapping = registers>}

// BAD: error: mapping must be 'tuned', 'registers', 'shared-memory' or 'recurrences-on-registers', got 'simt'

// The tuning comes from the target the `tuning` option names: sm_90 (the
// Hopper tuning, the default) above; kda-opt's test target gives every
// kernel 32 threads and K tiles of 16, and the kernels are built with them.
// UNIFORM-LABEL: func.func @exact_inter_solve_0
// UNIFORM-SAME: tile.tuning = #tile.tuning<threads = 32, block_k = 16>}
// UNIFORM: tile.load %arg0{{.*}} -> tensor<16x16xbf16>
// UNIFORM-LABEL: func.func @gate_gate_cumsum_0
// UNIFORM-SAME: tile.tuning = #tile.tuning<threads = 32, block_k = 16>} {
// NOTARGET: error: no kernel tuning target named 'sm_100' (registered: sm_90, test-uniform)

func.func @exact(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>,
                 %G: tensor<1x?x4x128xf32>, %beta: tensor<1x?x4xf32>,
                 %Aqk: tensor<1x?x4x64xbf16>, %Akkd: tensor<1x?x4x16xf32>)
    -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.0883883461 : f32, precision = #kda<precision tf32>}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x64xbf16>, tensor<1x?x4x16xf32>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>
}

func.func @safe(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>,
                %G: tensor<1x?x4x128xf32>, %beta: tensor<1x?x4xf32>,
                %Aqk: tensor<1x?x4x64xbf16>, %Akkd: tensor<1x?x4x16xf32>)
    -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.0883883461 : f32, safe_gate}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x64xbf16>, tensor<1x?x4x16xf32>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>
}

func.func @safe_dynamic_batch(%q: tensor<?x?x4x128xbf16>, %k: tensor<?x?x4x128xbf16>,
                              %G: tensor<?x?x4x128xf32>, %beta: tensor<?x?x4xf32>,
                              %Aqk: tensor<?x?x4x64xbf16>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.0883883461 : f32, safe_gate}
      : (tensor<?x?x4x128xbf16>, tensor<?x?x4x128xbf16>, tensor<?x?x4x128xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>
}

func.func @dynamic_heads(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>,
                         %G: tensor<?x?x?x128xf32>, %beta: tensor<?x?x?xf32>,
                         %Aqk: tensor<?x?x?x64xbf16>, %Akkd: tensor<?x?x?x16xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.0883883461 : f32, precision = #kda<precision tf32>}
      : (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xf32>,
         tensor<?x?x?xf32>, tensor<?x?x?x64xbf16>, tensor<?x?x?x16xf32>)
      -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>
}

func.func @varlen_dynamic_heads(%q: tensor<1x?x?x128xbf16>, %k: tensor<1x?x?x128xbf16>,
                                %G: tensor<1x?x?x128xf32>, %beta: tensor<1x?x?xf32>,
                                %Aqk: tensor<1x?x?x64xbf16>, %Akkd: tensor<1x?x?x16xf32>,
                                %cu: tensor<?xi64>)
    -> (tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.0883883461 : f32, safe_gate}
      : (tensor<1x?x?x128xbf16>, tensor<1x?x?x128xbf16>, tensor<1x?x?x128xf32>,
         tensor<1x?x?xf32>, tensor<1x?x?x64xbf16>, tensor<1x?x?x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x?x64xbf16>, tensor<1x?x?x64xbf16>
}

func.func @safe_varlen(%q: tensor<1x?x4x128xbf16>, %k: tensor<1x?x4x128xbf16>,
                       %G: tensor<1x?x4x128xf32>, %beta: tensor<1x?x4xf32>,
                       %Aqk: tensor<1x?x4x64xbf16>, %Akkd: tensor<1x?x4x16xf32>,
                       %cu: tensor<?xi64>)
    -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.0883883461 : f32, safe_gate}
      : (tensor<1x?x4x128xbf16>, tensor<1x?x4x128xbf16>, tensor<1x?x4x128xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x64xbf16>, tensor<1x?x4x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>
}

func.func @gate(%g: tensor<1x?x4x128xf32>) -> tensor<1x?x4x128xf32> {
  %G = kda.gate_cumsum %g : (tensor<1x?x4x128xf32>) -> tensor<1x?x4x128xf32>
  return %G : tensor<1x?x4x128xf32>
}

func.func @recurrence(%qg: tensor<?x?x8x128xbf16>, %kd: tensor<?x?x8x128xbf16>,
    %kg: tensor<?x?x8x128xbf16>, %v: tensor<?x?x8x128xbf16>, %beta: tensor<?x?x8xf32>,
    %M: tensor<?x?x8x16xbf16>, %Aqk: tensor<?x?x8x16xbf16>, %dl: tensor<?x?x8x128xf32>)
    -> tensor<?x?x8x128xbf16> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl {chunk_size = 16 : i64}
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
         tensor<?x?x8x128xbf16>, tensor<?x?x8xf32>, tensor<?x?x8x16xbf16>,
         tensor<?x?x8x16xbf16>, tensor<?x?x8x128xf32>)
      -> tensor<?x?x8x128xbf16>
  return %o : tensor<?x?x8x128xbf16>
}

func.func @scan(%kg: tensor<?x?x8x128xbf16>, %w: tensor<?x?x8x128xbf16>, %u: tensor<?x?x8x128xbf16>,
                %G: tensor<?x?x8x128xf32>)
    -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>) {
  %h, %vn = kda.state_scan %kg, %w, %u, %G
      : (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?x?x8x128xf32>)
      -> (tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>)
  return %h, %vn : tensor<?x?x8x128x128xbf16>, tensor<?x?x8x128xbf16>
}

func.func @recurrence_k64(%qg: tensor<?x?x8x64xbf16>, %kd: tensor<?x?x8x64xbf16>,
    %kg: tensor<?x?x8x64xbf16>, %v: tensor<?x?x8x64xbf16>, %beta: tensor<?x?x8xf32>,
    %M: tensor<?x?x8x16xbf16>, %Aqk: tensor<?x?x8x16xbf16>, %dl: tensor<?x?x8x64xf32>)
    -> tensor<?x?x8x64xbf16> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl {chunk_size = 16 : i64}
      : (tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>, tensor<?x?x8x64xbf16>,
         tensor<?x?x8x64xbf16>, tensor<?x?x8xf32>, tensor<?x?x8x16xbf16>,
         tensor<?x?x8x16xbf16>, tensor<?x?x8x64xf32>)
      -> tensor<?x?x8x64xbf16>
  return %o : tensor<?x?x8x64xbf16>
}

func.func @recurrence_f32(%qg: tensor<?x?x8x128xf32>, %kd: tensor<?x?x8x128xf32>,
    %kg: tensor<?x?x8x128xf32>, %v: tensor<?x?x8x128xf32>, %beta: tensor<?x?x8xf32>,
    %M: tensor<?x?x8x16xf32>, %Aqk: tensor<?x?x8x16xf32>, %dl: tensor<?x?x8x128xf32>)
    -> tensor<?x?x8x128xf32> {
  %o = kda.chunk_recurrence %qg, %kd, %kg, %v, %beta, %M, %Aqk, %dl {chunk_size = 16 : i64}
      : (tensor<?x?x8x128xf32>, tensor<?x?x8x128xf32>, tensor<?x?x8x128xf32>,
         tensor<?x?x8x128xf32>, tensor<?x?x8xf32>, tensor<?x?x8x16xf32>,
         tensor<?x?x8x16xf32>, tensor<?x?x8x128xf32>)
      -> tensor<?x?x8x128xf32>
  return %o : tensor<?x?x8x128xf32>
}
