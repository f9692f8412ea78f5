// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A masked tile store (the leading corner of a 64 x 32 bf16 shared tile into
// a global box of dynamic size) moves 16-byte pieces: 256 pieces of 8
// elements, two per thread of 128. A piece inside the box is one vector
// load from shared memory and one vector store; a piece that the box's
// column edge cuts is copied element by element up to the edge; a piece
// past the box is skipped. This runs when the global address and row
// stride are 16-byte aligned; otherwise the else branch keeps the copy as
// a thread loop of single elements.
// CHECK-LABEL: gpu.func @masked_store
// CHECK: %[[WIN:.*]] = memref.view %{{.*}} to memref<64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[DST:.*]] :
// CHECK: %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[DST]]
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFF]], %c2
// CHECK: %[[ADDR:.*]] = arith.addi %[[PTR]], %[[BYTES]]
// CHECK: arith.remui %[[ADDR]], %c16
// CHECK: arith.remui %[[STRIDES]]#0, %c8
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: scf.if %[[OK]] {
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c4
// CHECK: %[[P:.*]] = arith.remui %[[TID]], %c4
// CHECK: %[[COL:.*]] = arith.muli %[[P]], %c8
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS:.*]], %[[COL]]
// CHECK: %[[WHOLE:.*]] = arith.cmpi sge, %[[LEFT]], %c8
// CHECK: %[[NEXT:.*]] = arith.addi %[[COL]], %c8
// CHECK: %[[CUT:.*]] = arith.minsi %[[COLS]], %[[NEXT]]
// CHECK: %[[EDGE:.*]] = arith.maxsi %[[CUT]], %[[COL]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS:.*]] :
// CHECK: %[[VEC:.*]] = arith.andi %[[WHOLE]], %[[IN]]
// CHECK: %[[END:.*]] = arith.select %[[IN]], %[[EDGE]], %[[COL]]
// CHECK: scf.if %[[VEC]] {
// CHECK: %[[V:.*]] = vector.load %[[WIN]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x32xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: vector.store %[[V]], %[[DST]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<8xbf16>
// CHECK: } else {
// CHECK: scf.for %[[J:.*]] = %[[COL]] to %[[END]] step %c1 {
// CHECK: %[[E:.*]] = memref.load %[[WIN]][%[[ROW]], %[[J]]]
// CHECK: memref.store %[[E]], %[[DST]][%[[ROW]], %[[J]]]
// CHECK: vector.store
// CHECK: } else {
// CHECK: scf.for {{.*}} step %c128 {
// CHECK: memref.load
// CHECK: memref.store %{{.*}}, %[[DST]]
func.func @masked_store(%a: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %b: memref<?x?xbf16, strided<[?, 1], offset: ?>>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %b, %c0 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %cols = memref.dim %b, %c1 : memref<?x?xbf16, strided<[?, 1], offset: ?>>
  %t = memref.alloc() : memref<64x32xbf16, #gpu.address_space<workgroup>>
  %box = memref.subview %t[0, 0] [%rows, %cols] [1, 1] : memref<64x32xbf16, #gpu.address_space<workgroup>> to memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%box : memref<?x?xbf16, strided<[32, 1]>, #gpu.address_space<workgroup>>) outs(%b : memref<?x?xbf16, strided<[?, 1], offset: ?>>)
  return
}

// -----

// A whole 1-D tile (256 f32) is 64 pieces of 4 elements: threads 0-63 each
// move one, with no box check. (The fill before it runs 4 elements per
// thread too: the same threads, one splat vector store each.)
// CHECK-LABEL: gpu.func @whole_store
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ANY:.*]] = arith.cmpi ult, %[[TID]], %c64
// CHECK: scf.if %[[ANY]] {
// CHECK: vector.store %cst
// CHECK: scf.if
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[AT:.*]] = arith.muli %[[TID]], %c4
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%[[AT]]] {alignment = 16 : i64} : memref<256xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: vector.store %[[V]], %arg0[%[[AT]]] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK-NOT: scf.for
// CHECK: } else {
func.func @whole_store(%b: memref<256xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
  linalg.fill ins(%one : f32) outs(%t : memref<256xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<256xf32, #gpu.address_space<workgroup>>) outs(%b : memref<256xf32>)
  return
}

// -----

// Rows of 6 f32 (24 bytes) take 8-byte pieces of 2 elements.
// CHECK-LABEL: gpu.func @eight_byte_pieces
// CHECK: arith.remui %{{.*}}, %c8
// CHECK: vector.load {{.*}} {alignment = 8 : i64} : memref<16x6xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<16x6xf32>, vector<2xf32>
func.func @eight_byte_pieces(%b: memref<16x6xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<16x6xf32, #gpu.address_space<workgroup>>
  linalg.fill ins(%one : f32) outs(%t : memref<16x6xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<16x6xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x6xf32>)
  return
}

// -----

// Rows of 3 f32 have no aligned piece of two or more elements: the store
// stays a thread loop of single elements.
// CHECK-LABEL: gpu.func @odd_rows
// CHECK-NOT: vector.store
// CHECK: memref.store %{{.*}}, %arg0
// CHECK-NOT: vector.store
// CHECK: gpu.return
func.func @odd_rows(%b: memref<16x3xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<16x3xf32, #gpu.address_space<workgroup>>
  linalg.fill ins(%one : f32) outs(%t : memref<16x3xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<16x3xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x3xf32>)
  return
}
