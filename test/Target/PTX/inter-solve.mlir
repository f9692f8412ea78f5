// RUN: split-file %s %t
// RUN: kda-translate %t/chunk64.mlir --kda-to-ptx -o %t/chunk64.ptx
// RUN: FileCheck %s --check-prefix=C64 --input-file %t/chunk64.ptx
// RUN: FileCheck %s --check-prefix=CONTRACT --input-file %t/chunk64.ptx
// RUN: kda-translate %t/chunk32.mlir --kda-to-ptx -o %t/chunk32.ptx
// RUN: FileCheck %s --check-prefix=C32 --input-file %t/chunk32.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 -v %t/chunk32.ptx -o %t/chunk32.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The inter_solve (seed) kernel compiles to PTX: exp2 of the gate
// differences becomes ex2.approx, and the tf32 dots (the off-diagonal
// [16, 32] x [32, 16] blocks, and the 16x16 merge at tf32 or tf32x3) run on
// tensor cores as mma.sync m16n8k8; no libdevice function is needed.
//
// With chunk 32 the kernel assembles for sm_90 without spills. With chunk
// 64 it does not assemble yet: its tile temporaries take 85-104 KB of
// static shared memory, over the 48 KB limit, because every temporary gets
// its own workgroup buffer (see inter-solve-chunk64-ptxas.mlir).

// Multiplies and adds may fuse (gpu-fp-contract): none is printed with the
// explicit rounding that would keep ptxas from fusing it into an FFMA.
// CONTRACT-NOT: {{(mul|add|sub)\.rn\.f32}}

// C64-NOT: .extern .func
// C64: .visible .entry inter_solve_inter_solve_0(
// C64: ex2.approx.ftz.f32
// C64: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// C64: .visible .entry inter_solve_ieee_inter_solve_0(
// C64: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// C32-NOT: .extern .func
// C32: .visible .entry inter_solve_varlen_inter_solve_0(
// C32: ex2.approx.ftz.f32
// C32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// PTXAS: Compiling entry function 'inter_solve_varlen_inter_solve_0' for 'sm_90'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

//--- chunk64.mlir

// Chunk 64, bf16, merge at tf32.
func.func @inter_solve(%q: tensor<?x?x4x64xbf16>, %k: tensor<?x?x4x64xbf16>,
                       %G: tensor<?x?x4x64xf32>, %beta: tensor<?x?x4xf32>,
                       %Aqk: tensor<?x?x4x64xbf16>, %Akkd: tensor<?x?x4x16xf32>)
    -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {scale = 0.125 : f32}
      : (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>, tensor<?x?x4x64xf32>,
         tensor<?x?x4xf32>, tensor<?x?x4x64xbf16>, tensor<?x?x4x16xf32>)
      -> (tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>)
  return %Aqk_out, %M : tensor<?x?x4x64xbf16>, tensor<?x?x4x64xbf16>
}

// f32 I/O, merge at ieee (fp32 FMA loops; the off-diagonal dots stay tf32).
func.func @inter_solve_ieee(%q: tensor<?x?x1x60xf32>, %k: tensor<?x?x1x60xf32>,
                            %G: tensor<?x?x1x60xf32>, %beta: tensor<?x?x1xf32>,
                            %Aqk: tensor<?x?x1x64xf32>, %Akkd: tensor<?x?x1x16xf32>)
    -> (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd
      {scale = 0.125 : f32, precision = #kda<precision ieee>}
      : (tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>, tensor<?x?x1x60xf32>,
         tensor<?x?x1xf32>, tensor<?x?x1x64xf32>, tensor<?x?x1x16xf32>)
      -> (tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>)
  return %Aqk_out, %M : tensor<?x?x1x64xf32>, tensor<?x?x1x64xf32>
}
//--- chunk32.mlir

// Varlen, grouped value heads, K = 100 (a 4-wide last K tile), chunk 32,
// safe_gate, f16, merge at tf32x3.
func.func @inter_solve_varlen(%q: tensor<1x?x2x100xf16>, %k: tensor<1x?x2x100xf16>,
                              %G: tensor<1x?x8x100xf32>, %beta: tensor<1x?x8xbf16>,
                              %Aqk: tensor<1x?x8x32xf16>, %Akkd: tensor<1x?x8x16xf32>,
                              %cu: tensor<?xi64>)
    -> (tensor<1x?x8x32xf16>, tensor<1x?x8x32xf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd cu_seqlens %cu
      {scale = 0.1 : f32, chunk_size = 32 : i64, safe_gate, precision = #kda<precision tf32x3>}
      : (tensor<1x?x2x100xf16>, tensor<1x?x2x100xf16>, tensor<1x?x8x100xf32>,
         tensor<1x?x8xbf16>, tensor<1x?x8x32xf16>, tensor<1x?x8x16xf32>, tensor<?xi64>)
      -> (tensor<1x?x8x32xf16>, tensor<1x?x8x32xf16>)
  return %Aqk_out, %M : tensor<1x?x8x32xf16>, tensor<1x?x8x32xf16>
}
