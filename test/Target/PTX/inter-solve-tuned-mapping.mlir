// RUN: split-file %s %t
// RUN: kda-translate %t/safe.mlir --kda-to-ptx | FileCheck %s --check-prefix=REGISTERS
// RUN: kda-translate %t/safe.mlir --kda-to-ptx --no-register-tiles | FileCheck %s --check-prefix=SHARED
// RUN: kda-translate %t/safe-dynamic-batch.mlir --kda-to-ptx | FileCheck %s --check-prefix=REGISTERS-DYN

// kda-translate runs each kernel on the mapping the target's kernel tuning
// prefers for it. inter_solve with static heads and fixed lengths (any
// batch) runs on registers: 168 registers per thread, its dots as mma.sync
// on register fragments, and a few KB of shared memory for exchanges
// between warps. Under --no-register-tiles it keeps the shared-memory
// mapping: 128 registers and its tiles in tens of KB of shared memory.

// REGISTERS: .visible .entry safe_inter_solve_0(
// REGISTERS: .maxnreg 168
// REGISTERS: .shared .align 128 .b8 __wg_safe_inter_solve_0_0[{{[0-9][0-9]?[0-9]?[0-9]?}}];
// REGISTERS: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// REGISTERS-DYN: .visible .entry safe_dynamic_batch_inter_solve_0(
// REGISTERS-DYN: .maxnreg 168
// REGISTERS-DYN: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// SHARED: .visible .entry {{safe|safe_dynamic_batch}}_inter_solve_0(
// SHARED: .maxnreg 128
// SHARED: .shared .align 128 .b8 __wg_{{safe|safe_dynamic_batch}}_inter_solve_0_0[{{[0-9][0-9][0-9][0-9][0-9]}}];
// SHARED: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

//--- safe.mlir
func.func @safe(%q: tensor<1x?x4x64xbf16>, %k: tensor<1x?x4x64xbf16>,
                %G: tensor<1x?x4x64xf32>, %beta: tensor<1x?x4xf32>,
                %Aqk: tensor<1x?x4x64xbf16>, %Akkd: tensor<1x?x4x16xf32>)
    -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, safe_gate}
      : (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>, tensor<1x?x4x64xf32>,
         tensor<1x?x4xf32>, tensor<1x?x4x64xbf16>, tensor<1x?x4x16xf32>)
      -> (tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x4x64xbf16>, tensor<1x?x4x64xbf16>
}

//--- safe-dynamic-batch.mlir
func.func @safe_dynamic_batch(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>,
                              %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                              %Aqk: tensor<?x?x4x64xbf16>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, safe_gate}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>
}
