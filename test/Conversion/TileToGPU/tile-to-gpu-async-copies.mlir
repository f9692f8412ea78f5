// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A masked tile load (a zero fill of the whole shared buffer, then a copy
// of the box that exists into its leading corner) becomes 16-byte cp.async
// copies: 64 x 32 bf16 is 256 pieces of 8 elements, two per thread of 128.
// When the box covers the whole tile, the pieces are copied whole, with no
// per-piece mask. Otherwise a piece wholly inside the box is one cp.async
// (committed in its branch), and a piece the box cuts, or one wholly
// outside it, is copied element by element with the rest zero-filled, so
// that no copy names a byte past the box. The fill is gone from both. They
// run when the global address and row stride are 16-byte aligned;
// otherwise the else branch keeps the fill and the copy as thread loops.
// One barrier before; the wait and the barrier that publish the copies
// come where the buffer is first used, here nowhere: at the end of the
// block.
// CHECK-LABEL: gpu.func @masked_load
// CHECK: %[[WIN:.*]] = memref.view %{{.*}} to memref<64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[ROWS:.*]] = memref.dim %[[SRC:.*]], %c0
// CHECK: %[[COLS:.*]] = memref.dim %[[SRC]], %c1
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[SRC]] :
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[SRC]]
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %c2
// CHECK: %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK: arith.remui %[[ADDR]], %c16
// CHECK: arith.remui %[[STRIDES]]#0, %c8
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: gpu.barrier
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[FULLR:.*]] = arith.cmpi eq, %[[ROWS]], %c64
// CHECK-NEXT: %[[FULLC:.*]] = arith.cmpi eq, %[[COLS]], %c32
// CHECK-NEXT: %[[FULL:.*]] = arith.andi %[[FULLR]], %[[FULLC]]
// CHECK-NEXT: scf.if %[[FULL]] {
// CHECK: %[[W0:.*]] = nvgpu.device_async_copy %[[SRC]]{{.*}}, 8 {bypassL1}
// CHECK: %[[W1:.*]] = nvgpu.device_async_copy %[[SRC]]{{.*}}, 8 {bypassL1}
// CHECK-NEXT: nvgpu.device_async_create_group %[[W0]], %[[W1]]
// CHECK-NEXT: } else {
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c4
// CHECK: %[[P:.*]] = arith.remui %[[TID]], %c4
// CHECK: %[[COL:.*]] = arith.muli %[[P]], %c8
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS]], %[[COL]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[LEFT]], %c8
// CHECK: %[[N:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] :
// CHECK: %[[COUNT:.*]] = arith.select %[[IN]], %[[N]], %c0
// CHECK: %[[WHOLE:.*]] = arith.cmpi eq, %[[COUNT]], %c8
// CHECK-NEXT: scf.if %[[WHOLE]] {
// CHECK-NEXT: %[[T0:.*]] = nvgpu.device_async_copy %[[SRC]][%[[ROW]], %[[COL]]], %[[WIN]][%[[ROW]], %[[COL]]], 8 {bypassL1}
// CHECK-NEXT: nvgpu.device_async_create_group %[[T0]]
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %[[E:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT: %[[INSIDE:.*]] = arith.cmpi ult, %[[E]], %[[COUNT]]
// CHECK-NEXT: %[[V:.*]] = scf.if %[[INSIDE]] -> (bf16) {
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[COL]], %[[E]]
// CHECK-NEXT: %[[X:.*]] = memref.load %[[SRC]][%[[ROW]], %[[AT]]]
// CHECK-NEXT: scf.yield %[[X]] : bf16
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}} : bf16
// CHECK-NEXT: }
// CHECK-NEXT: %[[TO:.*]] = arith.addi %[[COL]], %[[E]]
// CHECK-NEXT: memref.store %[[V]], %[[WIN]][%[[ROW]], %[[TO]]]
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group{{ *$}}
// CHECK-NOT: cp.async.wait
// CHECK: } else {
// CHECK: vector.store %cst, %[[WIN]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.load %[[SRC]]
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.return
func.func @masked_load(%a: memref<?x?xbf16, strided<[?, 1], offset: ?>>) attributes {tile.kernel} {
  %zero = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64x32xbf16, #gpu.address_space<workgroup>>
  linalg.fill ins(%zero : bf16) outs(%t : memref<64x32xbf16, #gpu.address_space<workgroup>>)
  %rows = memref.dim %a, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %cols = memref.dim %a, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %box = memref.subview %t[0, 0] [%rows, %cols] [1, 1] : memref<64x32xbf16, #gpu.address_space<workgroup>> to memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<?x?xbf16, strided<[?, 1], offset: ?>>) outs(%box : memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>)
  return
}

// -----

// Two consecutive loads form one group: one condition, one barrier, all
// copies in flight together, one wait. A whole-buffer load of a static
// tile reads whole pieces (no element count); f32 pieces are 4 elements.
// A 1-D load of 16 f32 has 4 pieces for 128 threads: the threads past them
// skip it (and commit their group where they issue it).
// CHECK-LABEL: gpu.func @grouped_loads
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: gpu.barrier
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 4 {bypassL1} : memref<16x32xf32> to memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], 4 {bypassL1} : memref<16xf32> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_create_group
// CHECK-NOT: cp.async.wait
// The fallback copies share no memory: no barrier between them.
// CHECK: } else {
// CHECK: memref.store %{{.*}} : memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: cp.async.wait
// CHECK: gpu.return
func.func @grouped_loads(%a: memref<16x32xf32>, %v: memref<16xf32>, %out: memref<16x32xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %s = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xf32>) outs(%t : memref<16x32xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%v : memref<16xf32>) outs(%s : memref<16xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>)
      outs(%out : memref<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The wait comes as late as it can: the op between the load and the first
// use of its buffer works on other shared memory (a fill of another
// buffer), so it runs while the copies are in flight.
// CHECK-LABEL: gpu.func @deferred_wait
// CHECK: nvgpu.device_async_create_group
// CHECK: } else {
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NOT: cp.async.wait
// CHECK: vector.store %cst
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: cp.async.wait
// CHECK: gpu.return
func.func @deferred_wait(%a: memref<16x32xf32>, %out: memref<16x32xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %u = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xf32>) outs(%t : memref<16x32xf32, #gpu.address_space<workgroup>>)
  linalg.fill ins(%one : f32) outs(%u : memref<16x32xf32, #gpu.address_space<workgroup>>)
  linalg.add ins(%t, %u : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<16x32xf32, #gpu.address_space<workgroup>>)
      outs(%out : memref<16x32xf32>)
  return
}

// -----

// A load padded with a value other than +0 keeps its fill and copy loops:
// cp.async can only zero-fill.
// CHECK-LABEL: gpu.func @nonzero_pad
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.return
func.func @nonzero_pad(%a: memref<?x32xf32>) attributes {tile.kernel} {
  %pad = arith.constant -1.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<64x32xf32, #gpu.address_space<workgroup>>
  linalg.fill ins(%pad : f32) outs(%t : memref<64x32xf32, #gpu.address_space<workgroup>>)
  %rows = memref.dim %a, %c0 : memref<?x32xf32>
  %box = memref.subview %t[0, 0] [%rows, 32] [1, 1] : memref<64x32xf32, #gpu.address_space<workgroup>> to memref<?x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<?x32xf32>) outs(%box : memref<?x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>)
  return
}

// -----

// With few threads for the tile (2 threads, 256 pieces: 128 rounds each,
// more than the 32 issued as straight-line code), each thread issues its
// pieces from a loop, every piece committed in its own group, so that code
// size stays bounded (a 1-thread kernel used to unroll into minutes of
// compilation).
// CHECK-LABEL: gpu.func @few_threads
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %c128 step %c1 {
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %[[R]], %c2
// CHECK-NEXT: arith.addi %[[TID]], %[[STEP]]
// CHECK: %[[T:.*]] = nvgpu.device_async_copy
// CHECK-NEXT: nvgpu.device_async_create_group %[[T]]
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.device_async_create_group
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c128 step %c1 {
// CHECK: nvgpu.device_async_copy
func.func @few_threads(%a: memref<?x?xbf16, strided<[?, 1], offset: ?>>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 2>} {
  %zero = arith.constant 0.0 : bf16
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<64x32xbf16, #gpu.address_space<workgroup>>
  linalg.fill ins(%zero : bf16) outs(%t : memref<64x32xbf16, #gpu.address_space<workgroup>>)
  %rows = memref.dim %a, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %cols = memref.dim %a, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %box = memref.subview %t[0, 0] [%rows, %cols] [1, 1] : memref<64x32xbf16, #gpu.address_space<workgroup>> to memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<?x?xbf16, strided<[?, 1], offset: ?>>) outs(%box : memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>)
  return
}

// -----

// A load in a loop, of which each thread copies several pieces (64 x 32
// bf16, two 16-byte pieces per thread of 128), from a buffer whose row
// stride is dynamic: the copies read a view of the source whose stride
// went through an inline `mov` that also takes the loop's induction
// variable, so that LLVM does not hoist one loop-invariant address per
// piece out of the loop (the pieces' addresses are recomputed in each trip
// from one base). With a static row stride, the source is read as it is.
// CHECK-LABEL: gpu.func @opaque_stride_in_loop
// CHECK: scf.for %[[C:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[ROWS:.*]] = memref.subview %[[A:.*]][%{{.*}}, 0] [64, 32] [1, 1]
// CHECK: %{{.*}}, %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[ROWS]]
// CHECK-DAG: %[[S64:.*]] = arith.index_castui %[[STRIDES]]#0 : index to i64
// CHECK-DAG: %[[C64:.*]] = arith.index_castui %[[C]] : index to i64
// CHECK: %[[MOV:.*]] = llvm.inline_asm "mov.b64 $0, $1;", "=l,l,l" %[[S64]], %[[C64]] : (i64, i64) -> i64
// CHECK: %[[STRIDE:.*]] = arith.index_castui %[[MOV]] : i64 to index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[ROWS]] to offset: [%[[OFF]]], sizes: [64, 32], strides: [%[[STRIDE]], 1]
// CHECK: nvgpu.device_async_copy %[[VIEW]]
// CHECK: nvgpu.device_async_copy %[[VIEW]]
// CHECK-LABEL: gpu.func @static_stride_in_loop
// CHECK-NOT: llvm.inline_asm
// CHECK-NOT: memref.reinterpret_cast
// CHECK: gpu.return
func.func @opaque_stride_in_loop(%a: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64x32xbf16, #gpu.address_space<workgroup>>
  scf.for %c = %c0 to %n step %c1 {
    %row = arith.muli %c, %c64 : index
    %rows = memref.subview %a[%row, 0] [64, 32] [1, 1] : memref<?x?xbf16, strided<[?, 1], offset: ?>> to memref<64x32xbf16, strided<[?, 1], offset: ?>>
    linalg.copy ins(%rows : memref<64x32xbf16, strided<[?, 1], offset: ?>>) outs(%t : memref<64x32xbf16, #gpu.address_space<workgroup>>)
  }
  return
}
func.func @static_stride_in_loop(%a: memref<?x32xbf16>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64x32xbf16, #gpu.address_space<workgroup>>
  scf.for %c = %c0 to %n step %c1 {
    %row = arith.muli %c, %c64 : index
    %rows = memref.subview %a[%row, 0] [64, 32] [1, 1] : memref<?x32xbf16> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
    linalg.copy ins(%rows : memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%t : memref<64x32xbf16, #gpu.address_space<workgroup>>)
  }
  return
}
