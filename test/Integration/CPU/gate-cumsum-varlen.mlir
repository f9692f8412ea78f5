// Varlen on the CPU build, with one-token and empty sequences and sequences
// that straddle chunk boundaries; chunk 64 and 32; K = 60 (not a multiple
// of the 32-wide K tile); f32 and bf16 gates.

// RUN: split-file %s %t
// RUN: kda-translate %t/varlen.mlir --kda-to-bundle --no-cubin -o %t/varlen.kdab
// RUN: kda-translate %t/varlen32.mlir --kda-to-bundle --no-cubin -o %t/varlen32.kdab
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 300 --heads 1 --value-heads 3 --cu-seqlens 0,1,64,65,300 | FileCheck %s
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 2000 --heads 3 --value-heads 3 --cu-seqlens 0,15,100,300,1200,2000 --mask-p 0.1 | FileCheck %s
// RUN: kda-run %t/varlen.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 3 --cu-seqlens 0,1 | FileCheck %s
// RUN: kda-run %t/varlen32.kdab --cpu --batch 1 --seq-len 160 --heads 1 --value-heads 2 --cu-seqlens 0,31,96,160 | FileCheck %s
// RUN: kda-run %t/varlen32.kdab --cpu --batch 1 --seq-len 100 --heads 2 --value-heads 2 --cu-seqlens 0,0,50,50,100 | FileCheck %s

// CHECK: cu_seqlens=
// CHECK-NOT: FAIL
// CHECK: PASS

//--- varlen.mlir
func.func @gate_varlen(%g: tensor<1x?x3x60xf32>, %cu: tensor<?xi64>) -> tensor<1x?x3x60xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu : (tensor<1x?x3x60xf32>, tensor<?xi64>) -> tensor<1x?x3x60xf32>
  return %G : tensor<1x?x3x60xf32>
}

//--- varlen32.mlir
func.func @gate_varlen32(%g: tensor<1x?x2x64xbf16>, %cu: tensor<?xi64>) -> tensor<1x?x2x64xf32> {
  %G = kda.gate_cumsum %g cu_seqlens %cu {chunk_size = 32 : i64}
      : (tensor<1x?x2x64xbf16>, tensor<?xi64>) -> tensor<1x?x2x64xf32>
  return %G : tensor<1x?x2x64xf32>
}
