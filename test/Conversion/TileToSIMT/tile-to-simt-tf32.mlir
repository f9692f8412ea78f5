// RUN: kda-opt %s -split-input-file --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s -split-input-file --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=ROUND

// (ROUND counts what CHECK's order-sensitive lines cannot: the roundings,
// interleaved with the mma.sync that first reads them, and the loads of
// the column solves, interleaved with their stores.)

// f32 dots at tf32 precision on registers: mma.sync.m16n8k8 with tf32
// operands, each operand register rounded once (add 0x1000, clear the low
// 13 bits: to nearest, ties away from zero, as cvt.rna.tf32.f32 does).
// A 16x16x16 product on one warp: two 16x8 accumulator blocks, two K
// steps of 8 each, so four mma.sync; A has 8 registers, B 8.

#a = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 2], lanes = [8, 4], elems = [1, 1], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [2, 2], outer = [2, 1], lanes = [4, 8], elems = [1, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// ROUND-LABEL: func.func @dot_tf32
// ROUND-COUNT-16: arith.andi %{{.*}}, %c-8192_i32 : i32
// ROUND-NOT: arith.andi %{{.*}}, %c-8192_i32
// ROUND: return
// CHECK-LABEL: func.func @dot_tf32
// CHECK-COUNT-4: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>}
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @dot_tf32(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #a>
  %b = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #b>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32, #acc>
  %d = tile.dot %a, %b, %zero precision = tf32 : tensor<16x16xf32, #a>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #acc>
  tile.store %d, %z[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// -----

// tf32x3: each operand register split into a rounded high part and the
// rounded remainder (32 roundings), three products per block and K step:
// lo.hi, hi.lo, then hi.hi.

#a = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 2], lanes = [8, 4], elems = [1, 1], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [2, 2], outer = [2, 1], lanes = [4, 8], elems = [1, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>

// ROUND-LABEL: func.func @dot_tf32x3
// ROUND-COUNT-32: arith.andi %{{.*}}, %c-8192_i32 : i32
// ROUND-NOT: arith.andi %{{.*}}, %c-8192_i32
// ROUND: return
// CHECK-LABEL: func.func @dot_tf32x3
// CHECK-COUNT-12: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @dot_tf32x3(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #a>
  %b = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #b>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32, #acc>
  %d = tile.dot %a, %b, %zero precision = tf32x3 : tensor<16x16xf32, #a>, tensor<16x16xf32, #b> -> tensor<16x16xf32, #acc>
  tile.store %d, %z[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// -----

// tile.unit_lower_inverse on registers: one shared buffer of all the
// inputs and one of all the inverses (each live across the whole op: the
// threads solve different matrices at once), a barrier, the owners store
// each input into its rows (16-byte stores of their runs of 4), a barrier,
// thread t = warp * 32 + lane solves column t mod 16 of matrix t / 16
// (threads 0-31 take the 32 columns of the two 16x16 inputs; the rows are
// unrolled: 120 multiply-adds per column) and writes it as row t mod 16 of
// the transposed inverse (rows padded to 20 floats), a barrier, and every
// thread loads its elements of the inverses in their layouts, transposed.

#co = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [1, 1], lanes = [8, 4], elems = [2, 4], lane_strides = [4, 1], warp_strides = [1, 1]>
#a = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 2], lanes = [8, 4], elems = [1, 1], lane_strides = [4, 1], warp_strides = [1, 1]>

// ROUND-LABEL: func.func @inverse
// ROUND: %[[IN0:.*]] = memref.subview %alloc[0, 0] [16, 16] [1, 1]
// ROUND: scf.for
// ROUND-COUNT-120: memref.load %[[IN0]]
// ROUND-NOT: memref.load %[[IN0]]
// ROUND: scf.for
// CHECK-LABEL: func.func @inverse
// CHECK: %[[INS:.*]] = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[OUTS:.*]] = memref.alloc() : memref<32x20xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.alloc
// CHECK: gpu.barrier
// CHECK: %[[IN0:.*]] = memref.subview %[[INS]][0, 0] [16, 16] [1, 1]
// CHECK: %[[OUT0:.*]] = memref.subview %[[OUTS]][0, 0] [16, 16] [1, 1]
// CHECK: scf.if
// CHECK-COUNT-2: vector.store %{{.*}}, %[[IN0]]{{.*}} {alignment = 16 : i64} {{.*}}, vector<4xf32>
// CHECK: %[[IN1:.*]] = memref.subview %[[INS]][16, 0] [16, 16] [1, 1]
// CHECK: %[[OUT1:.*]] = memref.subview %[[OUTS]][16, 0] [16, 16] [1, 1]
// CHECK: scf.if
// CHECK-COUNT-2: vector.store %{{.*}}, %[[IN1]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[C0:.*]] =
// CHECK: memref.store %{{.*}}, %[[OUT0]][%[[C0]], %c0]
// CHECK: memref.store %{{.*}}, %[[OUT0]][%[[C0]], %c1]
// CHECK-COUNT-14: memref.store %{{.*}}, %[[OUT0]][%[[C0]],
// CHECK: scf.for
// CHECK-COUNT-16: memref.store %{{.*}}, %[[OUT1]]
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[OUT0]]
// CHECK-COUNT-8: memref.load %[[OUT1]]
// CHECK: return
func.func @inverse(%x: memref<32x16xf32>, %y: memref<32x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.0 : f32
  %l0 = tile.load %x[%c0, %c0] dims [0, 1] : memref<32x16xf32> -> tensor<16x16xf32, #co>
  %l1 = tile.load %x[%c16, %c0] dims [0, 1] : memref<32x16xf32> -> tensor<16x16xf32, #co>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32, #a>
  %i0, %i1 = tile.unit_lower_inverse ins(%l0, %l1 : tensor<16x16xf32, #co>, tensor<16x16xf32, #co>) outs(%zero, %zero : tensor<16x16xf32, #a>, tensor<16x16xf32, #a>) -> tensor<16x16xf32, #a>, tensor<16x16xf32, #a>
  tile.store %i0, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #a>, memref<32x16xf32>
  tile.store %i1, %y[%c16, %c0] dims [0, 1] : tensor<16x16xf32, #a>, memref<32x16xf32>
  return
}
