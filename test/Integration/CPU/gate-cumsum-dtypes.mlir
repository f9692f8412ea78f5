// Precomputed gates stored as f16 and bf16 on the CPU build, chunk 64 and
// 32, K = 100 (a 32-wide tile plus a 4-wide tail), tails in every case.

// RUN: split-file %s %t
// RUN: kda-translate %t/gate_f16.mlir --kda-to-bundle --no-cubin -o %t/gate_f16.kdab
// RUN: kda-translate %t/gate_bf16_chunk32.mlir --kda-to-bundle --no-cubin -o %t/gate_bf16_chunk32.kdab
// RUN: kda-run %t/gate_f16.kdab --cpu --batch 2 --seq-len 100 --heads 1 --value-heads 3 --dtype f16 | FileCheck %s
// RUN: kda-run %t/gate_bf16_chunk32.kdab --cpu --batch 3 --seq-len 33 --heads 2 --value-heads 2 --dtype bf16 | FileCheck %s
// RUN: kda-run %t/gate_bf16_chunk32.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 2 --mask-p 0.3 | FileCheck %s

// CHECK-NOT: FAIL
// CHECK: PASS

//--- gate_f16.mlir
func.func @gate_f16(%g: tensor<?x?x3x100xf16>) -> tensor<?x?x3x100xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x3x100xf16>) -> tensor<?x?x3x100xf32>
  return %G : tensor<?x?x3x100xf32>
}

//--- gate_bf16_chunk32.mlir
func.func @gate_bf16_chunk32(%g: tensor<?x?x2x100xbf16>) -> tensor<?x?x2x100xf32> {
  %G = kda.gate_cumsum %g {chunk_size = 32 : i64} : (tensor<?x?x2x100xbf16>) -> tensor<?x?x2x100xf32>
  return %G : tensor<?x?x2x100xf32>
}
