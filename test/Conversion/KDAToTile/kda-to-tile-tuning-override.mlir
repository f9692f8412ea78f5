// RUN: kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.threads=128,inter_solve.max_registers=0,inter_solve.speculate_loads=false,inter_solve.stages=2" | FileCheck %s
// RUN: kda-opt %s --convert-kda-to-tile="tuning-override=gate_precomputed.block_k=32,gate_precomputed.block_k=16,gate_precomputed.max_live_bytes=4096,gate_precomputed.hoist_addresses=true" | FileCheck %s --check-prefix=LATER
// RUN: kda-opt %s --convert-kda-to-tile="tuning-override=chunk_stages.mapping=registers,inter_solve.mapping=shared_memory" | FileCheck %s --check-prefix=MAPPING
// RUN: kda-opt %s --convert-kda-to-tile="fusable-chunk-stages tuning-override=chunk_stages.mapping=registers" | FileCheck %s --check-prefix=FUSABLE
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.mapping=simt" 2>&1 | FileCheck %s --check-prefix=BADMAP
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=solve.threads=64" 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.warps=4" 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.threads=many" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.threads=100" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.threads=2048" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.max_registers=300" 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.stages=5" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.speculate_loads=2" 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.block_k=12" 2>&1 | FileCheck %s --check-prefix=BLOCKK
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.max_live_bytes=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=inter_solve.transpose_state=true" 2>&1 | FileCheck %s --check-prefix=TRANSPOSE
// RUN: not kda-opt %s --convert-kda-to-tile="tuning-override=chunk_recurrence.transpose_state=3" 2>&1 | FileCheck %s --check-prefix=TRANSPOSEBOOL

// tuning-override entries KERNEL.KEY=VALUE replace what the tuning target
// chose for that kernel, after it chose (the mapping stays the target's:
// inter_solve on registers); later entries win. Other kernels keep their
// tuning.

// CHECK-LABEL: func.func @exact_inter_solve_0
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 16, hoist_addresses = true, mapping = registers, stages = 2>}
// CHECK-LABEL: func.func @gate_gate_cumsum_0
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 64>}

// LATER-LABEL: func.func @exact_inter_solve_0
// LATER-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true, mapping = registers>}
// LATER-LABEL: func.func @gate_gate_cumsum_0
// LATER-SAME: tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 4096, block_k = 16, hoist_addresses = true>}

// `mapping` sets the mapping a kernel asks for; `chunk_stages` stands for
// every per-chunk stage kernel (the gate cumsum, intra_diag, inter_solve,
// wy_recompute, decay_apply: the parts of the fused per-chunk kernel, which
// asks for registers when all its parts do, kda-fuse-tile-launches). Here
// the gate asks for registers, inter_solve (later entry) for shared memory.
// MAPPING-LABEL: func.func @exact_inter_solve_0
// MAPPING-SAME: tile.tuning = #tile.tuning<threads = 64, max_registers = 168, block_k = 16, speculate_loads = true, hoist_addresses = true>}
// MAPPING-LABEL: func.func @gate_gate_cumsum_0
// MAPPING-SAME: tile.tuning = #tile.tuning<threads = 128, block_k = 64, mapping = registers>}
// Built for fusion, the stages take their shared-memory tuning, asking
// for registers.
// FUSABLE-LABEL: func.func @exact_inter_solve_0
// FUSABLE-SAME: mapping = registers>}
// FUSABLE-LABEL: func.func @gate_gate_cumsum_0
// FUSABLE-SAME: mapping = registers>}
// BADMAP: error: tuning-override 'inter_solve.mapping=simt': mapping is registers or shared_memory

// SYNTAX: error: tuning-override 'inter_solve': expected KERNEL.KEY=VALUE, e.g. chunk_recurrence.threads=256
// KERNEL: error: tuning-override 'solve.threads=64': no tuned kernel 'solve' (the kernels: l2norm, beta_activation, gate, gate_precomputed, intra_diag_exact, intra_diag_safe, inter_solve, inter_solve_safe, inter_solve_ieee_merge, wy_recompute, output, output_register_dots, state_scan, state_scan_fused, decay_apply, chunk_recurrence, chunk_stages)
// KEY: error: tuning-override 'inter_solve.warps=4': no tuning key 'warps' (the keys: threads, max_registers, max_live_bytes, block_k, block_v, speculate_loads, hoist_addresses, stages, mapping, transpose_state)
// VALUE: error: tuning-override 'inter_solve.threads=many': the value 'many' is not an integer, true or false
// THREADS: error: tuning-override 'inter_solve.threads={{100|2048}}': threads must be a multiple of 32 from 32 to 1024
// REGS: error: tuning-override 'inter_solve.max_registers=300': max_registers must be 0 (none) or from 24 to 255
// STAGES: error: tuning-override 'inter_solve.stages=5': stages must be from 1 to 4
// BOOL: error: tuning-override 'inter_solve.speculate_loads=2': speculate_loads is true or false
// BLOCKK: error: tuning-override 'inter_solve.block_k=12': block_k must be 0 or a power of 2 of at least 8
// NEGATIVE: error: tuning-override 'inter_solve.max_live_bytes=-1': max_live_bytes must not be negative
// TRANSPOSE: error: tuning-override 'inter_solve.transpose_state=true': transpose_state applies to chunk_recurrence only
// TRANSPOSEBOOL: error: tuning-override 'chunk_recurrence.transpose_state=3': transpose_state is true or false

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

func.func @gate(%g: tensor<1x?x4x128xf32>) -> tensor<1x?x4x128xf32> {
  %G = kda.gate_cumsum %g : (tensor<1x?x4x128xf32>) -> tensor<1x?x4x128xf32>
  return %G : tensor<1x?x4x128xf32>
}
