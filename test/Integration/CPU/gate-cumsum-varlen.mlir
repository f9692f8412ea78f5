// Varlen on the CPU path, with a one-token sequence and sequences that
// straddle chunk boundaries; chunk 64 and 32; K = 60 (not a multiple of the
// 32-wide K tile); bf16 gates.

// RUN: kda-cpu-run %s --entry gate_varlen --seq-len 300 --cu-seqlens 0,1,64,65,300 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_varlen --seq-len 2000 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_varlen --seq-len 1 --cu-seqlens 0,1 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_varlen32 --seq-len 160 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: kda-cpu-run %s --entry gate_varlen32 --seq-len 100 --cu-seqlens 0,0,50,50,100 | FileCheck %s

// CHECK: cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS

func.func @gate_varlen(%g: tensor<1x?x3x60xf32>, %cu: tensor<?xi64>) -> tensor<1x?x3x60xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x3x60xf32>, tensor<?xi64>) -> tensor<1x?x3x60xf32>
  return %G : tensor<1x?x3x60xf32>
}

func.func @gate_varlen32(%g: tensor<1x?x2x64xbf16>, %cu: tensor<?xi64>) -> tensor<1x?x2x64xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x64xbf16>, tensor<?xi64>) -> tensor<1x?x2x64xf32>
  return %G : tensor<1x?x2x64xf32>
}
