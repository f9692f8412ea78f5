// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// Elementwise ops over the same iteration space that read a tile through
// the same view with identity maps touch each element from the thread that
// wrote it: no barrier between them. A transposed read of that tile needs
// one.
// CHECK-LABEL: gpu.func @chain
// CHECK: math.exp
// CHECK: vector.store %{{.*}}, %[[T:view[_0-9]*]][
// CHECK-NOT: gpu.barrier
// CHECK: vector.load %[[T]]
// CHECK: math.sqrt
// CHECK: vector.store %{{.*}}, %[[U:view[_0-9]*]][
// CHECK: gpu.barrier
// CHECK: memref.load %[[U]]
// CHECK: memref.store %{{.*}}, %arg1
func.func @chain(%a: memref<16x16xf32>, %b: memref<16x16xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  %u = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x16xf32>) outs(%t : memref<16x16xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%u : memref<16x16xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.sqrt %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%u : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// Without a barrier between two ops, a third must still wait for the
// first: the copy into %t (a box of dynamic size, so other threads'
// elements) and the op on %s share nothing, but the op reading %t after
// them needs a barrier.
// CHECK-LABEL: gpu.func @run
// CHECK: memref.store %{{.*}}, %[[BOX:subview[_0-9]*]][
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %cst, %[[S:view[_0-9]*]][
// CHECK: gpu.barrier
// CHECK: memref.load %[[T:view[_0-9]*]][
// CHECK: memref.store %{{.*}}, %arg1
func.func @run(%a: memref<?x16xf32>, %b: memref<16x16xf32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  %s = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  %n = memref.dim %a, %c0 : memref<?x16xf32>
  %box = memref.subview %t[0, 0] [%n, 16] [1, 1] : memref<16x16xf32, #gpu.address_space<workgroup>> to memref<?x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<?x16xf32>) outs(%box : memref<?x16xf32, strided<[16, 1]>, #gpu.address_space<workgroup>>)
  linalg.fill ins(%one : f32) outs(%s : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t, %s : memref<16x16xf32, #gpu.address_space<workgroup>>, memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Buffers whose live ranges do not overlap share bytes: %u (256 f32) takes
// the place of %t (16 x 16 f32) once %t is dead, so filling %u after the
// last read of %t needs a barrier although they are different buffers
// (their elements are spread over the threads differently).
// CHECK-LABEL: gpu.func @reused_bytes
// CHECK: %[[T:.*]] = memref.view %[[S:.*]][%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xf32
// CHECK: vector.load %[[T]]
// CHECK: vector.store %{{.*}}, %arg1
// CHECK: } else {
// CHECK-COUNT-2: memref.store %{{.*}}, %arg1
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[U:.*]] = memref.view %[[S]][%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<256xf32
// CHECK: vector.store %{{.*}}, %[[U]]
func.func @reused_bytes(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<256xf32>) attributes {tile.kernel} {
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x16xf32>) outs(%t : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x16xf32>)
  %u = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
  linalg.fill ins(%two : f32) outs(%u : memref<256xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%u : memref<256xf32, #gpu.address_space<workgroup>>) outs(%c : memref<256xf32>)
  return
}

// -----

// Two views of one buffer at dynamic offsets may name different rows: a
// thread may read an element that another thread wrote, so a barrier
// separates the ops even though the views have one type.
// CHECK-LABEL: gpu.func @dynamic_offset_views
// CHECK: math.exp
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: memref.store %{{.*}}, %arg1
func.func @dynamic_offset_views(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %i: index, %j: index) attributes {tile.kernel} {
  %buf = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
  %s1 = memref.subview %buf[%i, 0] [16, 16] [1, 1] : memref<32x16xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
  %s2 = memref.subview %buf[%j, 0] [16, 16] [1, 1] : memref<32x16xf32, #gpu.address_space<workgroup>> to memref<16x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x16xf32>) outs(%s1 : memref<16x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s2 : memref<16x16xf32, strided<[16, 1], offset: ?>, #gpu.address_space<workgroup>>) outs(%b : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
