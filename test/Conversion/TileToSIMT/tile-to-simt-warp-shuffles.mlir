// RUN: kda-opt %s --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --convert-tile-to-simt=warp-shuffles=1 --canonicalize --cse | FileCheck %s --check-prefix=SHFL

// Layout changes that keep every element in its warp: through shared
// memory by default (a barrier, stores, a barrier, loads); with
// warp-shuffles, shfl.sync.idx within the warp. Changes that move elements
// between warps go through shared memory either way.

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
#acc_two_warps = #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#a_tf32 = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 2], lanes = [8, 4], elems = [1, 1], lane_strides = [4, 1], warp_strides = [1, 1]>
#b_two_warps = #tile.dist<warps = [1, 2], batch = [2, 1], outer = [2, 1], lanes = [4, 8], elems = [1, 1], lane_strides = [1, 4], warp_strides = [1, 1]>

// An f32 accumulator becoming a B operand (movmatrix moves 16-bit
// elements only): every element stays in its warp. By default through
// shared memory; with warp-shuffles each register is gathered by shuffles.
// Result register 0 of lane l is row 2 (l % 4), column l / 4: lane
// 8 (l % 4) + l / 8 holds it, in its register (l / 4) % 2. The source lane
// is XOR-linear in the lane's bits (bits 0, 1, 3, 4 flip 8, 16, 1, 2); two
// shuffles per register (its two candidate registers) and a select by lane
// (0xF0F0F0F0: bit 2 of the lane set); no shared memory, no barrier.
// CHECK-LABEL: func.func @to_operand_b_f32
// CHECK: memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: return
// SHFL-LABEL: func.func @to_operand_b_f32
// SHFL-DAG: %[[MASK:.*]] = arith.constant -252645136 : i32
// SHFL-DAG: %[[C4:.*]] = arith.constant 4 : i32
// SHFL-NOT: memref.alloc
// SHFL-NOT: gpu.barrier
// SHFL: %[[LANE:.*]] = arith.index_cast %{{.*}} : index to i32
// SHFL: %[[R0:.*]] = vector.extract %[[T:.*]][0] : f32 from vector<8xf32>
// SHFL: %[[S0:.*]], %{{.*}} = gpu.shuffle idx %[[R0]], %[[FROM:[0-9]+]], %{{.*}} : f32
// SHFL: %[[R1:.*]] = vector.extract %[[T]][1] : f32 from vector<8xf32>
// SHFL: %[[S1:.*]], %{{.*}} = gpu.shuffle idx %[[R1]], %[[FROM]], %{{.*}} : f32
// SHFL: %[[SHIFTED:.*]] = arith.shrui %[[MASK]], %[[LANE]] : i32
// SHFL: %[[BIT:.*]] = arith.andi %[[SHIFTED]], %{{.*}} : i32
// SHFL: %[[TAKES:.*]] = arith.cmpi ne, %[[BIT]], %{{.*}} : i32
// SHFL: arith.select %[[TAKES]], %[[S1]], %[[S0]] : f32
// Result register 1 (row 2 (l % 4) + 1): four lanes further.
// SHFL: %[[FROM1:.*]] = arith.xori %[[FROM]], %[[C4]] : i32
// SHFL: gpu.shuffle idx %[[R0]], %[[FROM1]]
// SHFL: gpu.shuffle idx %[[R1]], %[[FROM1]]
// SHFL-COUNT-12: gpu.shuffle idx
// SHFL-NOT: gpu.shuffle
// SHFL-NOT: memref.alloc
// SHFL: return
func.func @to_operand_b_f32(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %b = tile.convert_layout %t : tensor<16x16xf32, #acc> -> tensor<16x16xf32, #b>
  tile.store %b, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #b>, memref<16x16xf32>
  return
}

// An accumulator split over two warps (8 columns each) becoming an A
// operand that every warp holds whole: half of each warp's elements live
// in the other warp, so the change goes through shared memory in both
// modes. Each thread's column pairs go in as 8-byte stores.
// SHFL-LABEL: func.func @to_operand_a_across_warps
// CHECK-LABEL: func.func @to_operand_a_across_warps
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT: gpu.shuffle
// SHFL: %[[BUF:.*]] = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
// SHFL: gpu.barrier
// SHFL-COUNT-2: vector.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x16xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// SHFL-NOT: memref.store
// SHFL: gpu.barrier
// SHFL-COUNT-8: memref.load %[[BUF]]
// SHFL-NOT: gpu.shuffle
// SHFL: return
func.func @to_operand_a_across_warps(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc_two_warps>
  %a = tile.convert_layout %t : tensor<16x16xf32, #acc_two_warps> -> tensor<16x16xf32, #a_tf32>
  tile.store %a, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #a_tf32>, memref<16x16xf32>
  return
}

// A tf32 A operand that both warps hold whole becoming a B operand split
// over the two warps (8 columns each): every element a warp needs is
// already in the warp, but in other registers in each warp (warp 1's
// columns 8-15 are its registers 4-7). The lanes still follow one XOR-linear
// pattern, so each shuffle sends a register picked by warp (a select on
// the warp id): 4 registers, 2 candidates each, no shared memory.
// CHECK-LABEL: func.func @to_operand_b_per_warp
// CHECK: memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: return
// SHFL-LABEL: func.func @to_operand_b_per_warp
// SHFL-NOT: memref.alloc
// SHFL: %[[WARP:.*]] = arith.divui %{{.*}}, %c32 : index
// SHFL: %[[IN_WARP1:.*]] = arith.cmpi eq, %[[WARP]], %c1 : index
// SHFL: %[[SENT:.*]] = arith.select %[[IN_WARP1]], %{{.*}}, %{{.*}} : f32
// SHFL: gpu.shuffle idx %[[SENT]]
// SHFL-COUNT-7: gpu.shuffle idx
// SHFL-NOT: gpu.shuffle
// SHFL-NOT: gpu.barrier
// SHFL: return
func.func @to_operand_b_per_warp(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #a_tf32>
  %b = tile.convert_layout %t : tensor<16x16xf32, #a_tf32> -> tensor<16x16xf32, #b_two_warps>
  tile.store %b, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #b_two_warps>, memref<16x16xf32>
  return
}

// 16-bit registers travel in pairs: result registers 2o and 2o + 1 of lane
// l (row 4 o + l % 4, columns 2 (l / 4) and 2 (l / 4) + 1) sit in one lane
// of the accumulator, in consecutive registers (the candidates: its
// columns 0-7 or 8-15, by bit 4 of the lane), so each pair is one 32-bit
// shuffle per candidate of the two registers packed: 8 shuffles for 8
// registers instead of 16.
#acc_bf16 = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#cols = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [4, 1], lanes = [4, 8], elems = [1, 2], lane_strides = [1, 4], warp_strides = [1, 1]>
// CHECK-LABEL: func.func @packed_pairs
// CHECK-COUNT-2: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: return
// SHFL-LABEL: func.func @packed_pairs
// SHFL-NOT: gpu.barrier
// SHFL: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xbf16>
// SHFL: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// SHFL: gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : i32
// SHFL-COUNT-7: gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : i32
// SHFL-NOT: gpu.shuffle
// SHFL-NOT: arith.extui %{{.*}} : i16 to i32
// SHFL: return
func.func @packed_pairs(%x: memref<16x16xbf16>, %y: memref<16x16xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #acc_bf16>
  %b = tile.convert_layout %t : tensor<16x16xbf16, #acc_bf16> -> tensor<16x16xbf16, #cols>
  tile.store %b, %y[%c0, %c0] dims [0, 1] : tensor<16x16xbf16, #cols>, memref<16x16xbf16>
  return
}
