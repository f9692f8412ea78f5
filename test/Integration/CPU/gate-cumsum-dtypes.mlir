// Precomputed gates stored as f16 and bf16 on the CPU path, chunk 64 and
// 32, K = 100 (a 32-wide tile plus a 4-wide tail), tails in every case.

// RUN: kda-cpu-run %s --entry gate_f16 --batch 2 --seq-len 100 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_bf16_chunk32 --batch 3 --seq-len 33 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_bf16_chunk32 --batch 1 --seq-len 1 --mask-p 0.3 | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: PASS

func.func @gate_f16(%g: tensor<?x?x3x100xf16>) -> tensor<?x?x3x100xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x3x100xf16>) -> tensor<?x?x3x100xf32>
  return %G : tensor<?x?x3x100xf32>
}

func.func @gate_bf16_chunk32(%g: tensor<?x?x2x100xbf16>) -> tensor<?x?x2x100xf32> {
  %G = kda.gate_cumsum %g {chunk_size = 32 : i64} : (tensor<?x?x2x100xbf16>) -> tensor<?x?x2x100xf32>
  return %G : tensor<?x?x2x100xf32>
}
