// RUN: kda-opt %s --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// RUN: kda-opt %kda_src_root/examples/register_chain.mlir --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=CHAIN

// Register tiles become per-thread code: a vector of the elements each
// thread holds, no shared memory except across warps.

#acc = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#b = #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>
#acc4 = #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>
#cols4 = #tile.dist<warps = [1], batch = [2], outer = [1], lanes = [4], elems = [2], lane_strides = [1], warp_strides = [4]>
#rows1 = #tile.dist<warps = [1], batch = [1], outer = [2], lanes = [8], elems = [1], lane_strides = [4], warp_strides = [1]>

// Each thread loads its 8 elements, multiplies them and stores them; the
// layout has no copies, so every thread stores. The thread's elements come
// in pairs along rows. Where the box holds the whole tile and the pairs are
// aligned (checked once per access), every pair is one unchecked 8-byte
// access at a constant offset from the thread's first element (whose
// address goes through an inline mov, so that LLVM keeps one base instead
// of hoisting one per pair out of loops); else each pair is checked, and
// here (static shapes, unaligned) read element by element.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[MOV:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l"
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[MOV]] : i64 to !llvm.ptr<1>
// CHECK: scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK-NEXT: llvm.load %[[PTR]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: llvm.getelementptr inbounds %[[PTR]][512]
// CHECK: } else {
// CHECK-COUNT-8: memref.load %arg0
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %arg1
// CHECK: return
func.func @elementwise(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %two = arith.constant 2.0 : f32
  %s = tile.splat %two : f32 -> tensor<16x16xf32, #acc>
  %p = arith.mulf %t, %s : tensor<16x16xf32, #acc>
  tile.store %p, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// With a dynamic row stride (a head count known only at run time), the
// stride in bytes goes through an inline mov tied to the thread's address
// too, and a register's offset is a multiple of it (rows 8 apart: 8 times
// the stride) plus a constant, computed where the access is.
// CHECK-LABEL: func.func @elementwise_dynamic_stride
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %arg0
// CHECK: %[[SBYTES:.*]] = arith.muli %[[STRIDES]]#0, %c4
// CHECK: %[[S64:.*]] = arith.index_castui %[[SBYTES]] : index to i64
// CHECK: %[[STRIDE:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l,l" %[[S64]], %[[ADDR:.*]] : (i64, i64) -> i64
// CHECK: %[[MOV:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l" %[[ADDR]] : (i64) -> i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[MOV]] : i64 to !llvm.ptr<1>
// CHECK: llvm.load %[[PTR]] {alignment = 8 : i64}
// CHECK: %[[ROWS8:.*]] = llvm.mul %[[STRIDE]], %{{.*}} : i64
// CHECK: %[[ROW8:.*]] = llvm.getelementptr inbounds %[[PTR]][%[[ROWS8]]]
// CHECK: llvm.load %[[ROW8]] {alignment = 8 : i64}
// CHECK: llvm.getelementptr inbounds %[[PTR]][32]
// CHECK: llvm.getelementptr inbounds %[[ROW8]][32]
func.func @elementwise_dynamic_stride(%x: memref<?x?xf32>, %y: memref<?x?xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<?x?xf32> -> tensor<16x16xf32, #acc>
  tile.store %t, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<?x?xf32>
  return
}

// Row sums of a 16x16 accumulator: each thread adds its 2 elements of a
// row, then the 4 lanes of the row's quad add theirs (xor 1, 2). The row
// vector is held by all 4 lanes of a quad: only the first stores.
// CHECK-LABEL: func.func @row_sums
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK-NOT: gpu.barrier
// CHECK: %[[COPY:.*]] = arith.andi %{{.*}}, %c3 : index
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[COPY]], %c0 : index
// CHECK: arith.andi %[[OWNER]]
// CHECK: memref.store
func.func @row_sums(%x: memref<16x16xf32>, %y: memref<16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %s = tile.reduce add %t dim 1 : tensor<16x16xf32, #acc> -> tensor<16xf32, #rows1>
  tile.store %s, %y[%c0] dims [0] : tensor<16xf32, #rows1>, memref<16xf32>
  return
}

// Column sums of a 64x16 accumulator over 4 warps: in registers, across
// the 8 lanes of a column (xor 4, 8, 16), then the warps' partials through
// shared memory, added in warp order.
// CHECK-LABEL: func.func @column_sums
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: %[[W0:.*]] = memref.load %[[SCRATCH]][%c0,
// CHECK: %[[W1:.*]] = memref.load %[[SCRATCH]][%c1,
// CHECK: arith.addf %[[W0]], %[[W1]] : f32
func.func @column_sums(%x: memref<64x16xf32>, %y: memref<16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x16xf32> -> tensor<64x16xf32, #acc4>
  %s = tile.reduce add %t dim 0 : tensor<64x16xf32, #acc4> -> tensor<16xf32, #cols4>
  tile.store %s, %y[%c0] dims [0] : tensor<16xf32, #cols4>, memref<16xf32>
  return
}

// From the accumulator layout to the B operand layout, 16-bit elements
// change lanes within the warp as 8x8 transposes: one movmatrix per
// register pair, no shared memory.
// CHECK-LABEL: func.func @to_operand_b
// CHECK-NOT: memref.alloc
// CHECK-COUNT-4: llvm.inline_asm "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r" %{{.*}} : (i32) -> i32
// CHECK-NOT: movmatrix
// CHECK-NOT: gpu.barrier
// #b pairs elements along columns, not along the memref's rows: stored
// element by element.
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}}, %arg1
func.func @to_operand_b(%x: memref<16x16xbf16>, %y: memref<16x16xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16, #acc>
  %b = tile.convert_layout %t : tensor<16x16xbf16, #acc> -> tensor<16x16xbf16, #b>
  tile.store %b, %y[%c0, %c0] dims [0, 1] : tensor<16x16xbf16, #b>, memref<16x16xbf16>
  return
}

// The same change on f32 elements (movmatrix moves 16-bit ones): through
// shared memory (with warp-shuffles, by shuffles:
// tile-to-simt-warp-shuffles.mlir); the accumulator's column pairs go in
// as 8-byte stores.
// CHECK-LABEL: func.func @to_operand_b_f32
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.store %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x16xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: gpu.barrier
// CHECK-COUNT-8: memref.load %[[BUF]]
// CHECK-NOT: movmatrix
// CHECK-NOT: gpu.shuffle
func.func @to_operand_b_f32(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %b = tile.convert_layout %t : tensor<16x16xf32, #acc> -> tensor<16x16xf32, #b>
  tile.store %b, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #b>, memref<16x16xf32>
  return
}

// A register tile stored to and loaded from a workgroup buffer (a fused
// per-chunk kernel's per-program buffer) goes through shared-space
// pointers (address space 3), a barrier between the two; the kernel
// arguments through global ones.
// CHECK-LABEL: func.func @workgroup_buffer
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: %[[SHARED:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %[[SHARED]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %[[SHARED]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.store %{{.*}} : vector<2xf32>, !llvm.ptr<1>
func.func @workgroup_buffer(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  tile.store %t, %buf[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32, #gpu.address_space<workgroup>>
  %u = tile.load %buf[%c0, %c0] dims [0, 1] : memref<16x16xf32, #gpu.address_space<workgroup>> -> tensor<16x16xf32, #acc>
  tile.store %u, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// A loop carrying a register tile carries its vector.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (vector<8xf32>)
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: scf.yield %[[N]] : vector<8xf32>
func.func @loop(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32, #acc>
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %t) -> (tensor<16x16xf32, #acc>) {
    %n = arith.addf %s, %t : tensor<16x16xf32, #acc>
    scf.yield %n : tensor<16x16xf32, #acc>
  }
  tile.store %sum, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32, #acc>, memref<16x16xf32>
  return
}

// A 64x64 bf16 B operand (8 KiB) that all four warps hold whole is read
// once, in a coalesced layout over the four warps (16-byte runs), and
// handed out through shared memory; the 16x64 one (2 KiB) is read by
// every warp itself.
#bstaged = #tile.dist<warps = [1, 1], batch = [4, 8], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 4]>
#bsmall = #tile.dist<warps = [1, 1], batch = [1, 8], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 4]>
// CHECK-LABEL: func.func @staged_operand
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK: %[[STAGE:.*]] = memref.alloc() : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.store %{{.*}}, %[[STAGE]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: memref.load %[[STAGE]]
// CHECK-NOT: memref.alloc
// CHECK: memref.load %arg1
// CHECK: return
func.func @staged_operand(%x: memref<64x64xbf16>, %y: memref<16x64xbf16>, %o: memref<64x64xbf16>, %p: memref<16x64xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16, #bstaged>
  %u = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x64xbf16> -> tensor<16x64xbf16, #bsmall>
  tile.store %t, %o[%c0, %c0] dims [0, 1] : tensor<64x64xbf16, #bstaged>, memref<64x64xbf16>
  tile.store %u, %p[%c0, %c0] dims [0, 1] : tensor<16x64xbf16, #bsmall>, memref<16x64xbf16>
  return
}

// Staging pays when the copies would read at least 8 KiB more than one
// load: a 16x128 bf16 tile (4 KiB) that all four warps of a 128-thread
// program hold whole is read once and handed out through shared memory
// (three copies saved); with two warps (64 threads, one copy saved) each
// warp reads it itself.
#bwide = #tile.dist<warps = [1, 1], batch = [1, 16], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 4]>
// CHECK-LABEL: func.func @staged_four_warps
// CHECK: memref.alloc() : memref<16x128xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: return
// CHECK-LABEL: func.func @unstaged_two_warps
// CHECK-NOT: memref.alloc
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @staged_four_warps(%x: memref<16x128xbf16>, %o: memref<16x128xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x128xbf16> -> tensor<16x128xbf16, #bwide>
  tile.store %t, %o[%c0, %c0] dims [0, 1] : tensor<16x128xbf16, #bwide>, memref<16x128xbf16>
  return
}
func.func @unstaged_two_warps(%x: memref<16x128xbf16>, %o: memref<16x128xbf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x128xbf16> -> tensor<16x128xbf16, #bwide>
  tile.store %t, %o[%c0, %c0] dims [0, 1] : tensor<16x128xbf16, #bwide>, memref<16x128xbf16>
  return
}

// A 64x64 bf16 tile (8 KiB) that only a dot reads, as its B operand, and
// that all four warps would hold whole stays in shared memory: copied once,
// coalesced, by cp.async (16 bytes a lane) into a buffer with rows padded
// by 8 elements; the wait and its barrier go right before the dot, and
// each warp reads its B fragments from there with ldmatrix (x2,
// transposed: one per 16x8 fragment, 4 K steps x 8 column blocks), not
// from registers.
#accw = #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#aw = #tile.dist<warps = [4, 1], batch = [1, 4], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
// CHECK-LABEL: func.func @shared_b_operand
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[BUF]][{{.*}}], 8 {bypassL1} : memref<64x64xbf16> to memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-32: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-NOT: nvvm.ldmatrix
// CHECK: return
func.func @shared_b_operand(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %o: memref<64x64xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %x = tile.load %a[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16, #aw>
  %y = tile.load %b[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16, #bstaged>
  %acc = tile.splat %zero : f32 -> tensor<64x64xf32, #accw>
  %d = tile.dot %x, %y, %acc : tensor<64x64xbf16, #aw>, tensor<64x64xbf16, #bstaged> -> tensor<64x64xf32, #accw>
  tile.store %d, %o[%c0, %c0] dims [0, 1] : tensor<64x64xf32, #accw>, memref<64x64xf32>
  return
}

// The example's chain: two mma.sync per 16x16 product (two 16x8 blocks),
// the first product's accumulator, rounded to bf16, is the second's A
// operand as it stands, and nothing goes through shared memory.
// CHAIN-LABEL: func.func @chain_block
// CHAIN-NOT: memref.alloc
// CHAIN-NOT: gpu.barrier
// CHAIN-COUNT-2: nvvm.mma.sync
// CHAIN: math.exp2 %{{.*}} : vector<8xf32>
// CHAIN: arith.select %{{.*}} : vector<8xi1>, vector<8xf32>
// CHAIN: gpu.shuffle xor
// CHAIN: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHAIN-COUNT-2: nvvm.mma.sync
// CHAIN-NOT: memref.alloc
// CHAIN-NOT: gpu.barrier
// CHAIN: return

