// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A loop that yields a buffer allocated in its own body (what one-shot
// bufferization makes of a tile carried by scf.for) gets a carried buffer
// allocated before the loop: the initial tile is copied into it, the body
// reads it instead of the iter_arg, the yielded tile is copied into it at
// the end of each iteration, and the code after the loop reads it; the
// loop no longer carries anything (its iter_arg is dropped). Without
// this, the body's allocation (one fixed place in shared memory) would be
// overwritten by the next iteration while that iteration still reads the
// carried tile through its iter_arg.

// CHECK-LABEL: gpu.func @carry
// CHECK-SAME: workgroup(%[[S:.*]] : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: %[[INIT:.*]] = memref.view %[[S]][%c0][] : {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[INIT]]
// The initial tile is copied into the carried buffer (its own bytes).
// CHECK: %[[CARRIED:.*]] = memref.view %[[S]][%c2048][] : {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[X:.*]] = vector.load %[[INIT]][
// CHECK-NEXT: vector.store %[[X]], %[[CARRIED]][
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// The body reads the carried buffer and writes a tile of its own (the
// bytes of the dead initial tile) ...
// CHECK: %[[Y:.*]] = vector.load %[[CARRIED]][
// CHECK-COUNT-4: math.exp
// CHECK: vector.store %{{.*}}, %[[INIT]][
// ... which is copied into the carried buffer at the end of the iteration
// (each thread copies the elements it wrote, 4 at a time like the exp: no
// barrier in between).
// CHECK-NOT: gpu.barrier
// CHECK: %[[Z:.*]] = vector.load %[[INIT]][
// CHECK-NEXT: vector.store %[[Z]], %[[CARRIED]][
// CHECK: gpu.barrier
// CHECK-NEXT: }
// After the loop, the carried buffer holds the result.
// CHECK: %[[R:.*]] = vector.load %[[CARRIED]][
// CHECK-NEXT: vector.store %[[R]], %arg1
func.func @carry(%a: memref<32x16xf32>, %b: memref<32x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<32x16xf32>) outs(%init : memref<32x16xf32, #gpu.address_space<workgroup>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> (memref<32x16xf32, #gpu.address_space<workgroup>>) {
    %next = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%t : memref<32x16xf32, #gpu.address_space<workgroup>>) outs(%next : memref<32x16xf32, #gpu.address_space<workgroup>>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    scf.yield %next : memref<32x16xf32, #gpu.address_space<workgroup>>
  }
  linalg.copy ins(%r : memref<32x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<32x16xf32>)
  return
}

// -----

// A tile updated in place (the loop hands on the buffer it got, here
// through an scf.if whose branches both yield it) is the initial buffer
// throughout: the body and the code after the loop use that buffer (its
// bytes known to barrier and wait placement), with no copy per iteration
// and no iter_arg left.
// CHECK-LABEL: gpu.func @in_place_carry
// CHECK: %[[ACC:.*]] = memref.view %{{.*}}[%c0][] : {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT: scf.if
// CHECK: vector.load %[[ACC]]
// CHECK-COUNT-4: math.exp
// CHECK: vector.store %{{.*}}, %[[ACC]]
// CHECK-NOT: memref.view
// CHECK: vector.load %[[ACC]]
// CHECK-NEXT: vector.store %{{.*}}, %arg1
// CHECK: gpu.return
func.func @in_place_carry(%a: memref<32x16xf32>, %b: memref<32x16xf32>, %n: index, %p: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<32x16xf32>) outs(%init : memref<32x16xf32, #gpu.address_space<workgroup>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> (memref<32x16xf32, #gpu.address_space<workgroup>>) {
    %u = scf.if %p -> (memref<32x16xf32, #gpu.address_space<workgroup>>) {
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
          ins(%t : memref<32x16xf32, #gpu.address_space<workgroup>>) outs(%t : memref<32x16xf32, #gpu.address_space<workgroup>>) {
      ^bb0(%x: f32, %y: f32):
        %e = math.exp %x : f32
        linalg.yield %e : f32
      }
      scf.yield %t : memref<32x16xf32, #gpu.address_space<workgroup>>
    } else {
      scf.yield %t : memref<32x16xf32, #gpu.address_space<workgroup>>
    }
    scf.yield %u : memref<32x16xf32, #gpu.address_space<workgroup>>
  }
  linalg.copy ins(%r : memref<32x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<32x16xf32>)
  return
}

// -----

// A tile the body allocates for the next iteration and first writes after
// its last read of the carried tile (the next chunk's tile, loaded a chunk
// ahead) is written into the carried buffer directly: no copy at the end
// of the body, and no second buffer.
// CHECK-LABEL: gpu.func @load_ahead
// CHECK-SAME: workgroup(%[[S:.*]] : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: %[[INIT:.*]] = memref.view %[[S]][%c0][] : {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[CARRIED:.*]] = memref.view %[[S]][%c2048][] : {{.*}} to memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// The body waits for the tile its previous iteration loaded (the copies
// ran under the rest of that iteration), reads it ...
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[CARRIED]][
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %arg1[
// ... then, after a barrier, loads the next tile into the same buffer
// (asynchronously where aligned), with no wait before the iteration ends.
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[CARRIED]][
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %[[CARRIED]][
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: }
// CHECK-NEXT: }
// The last iteration's copies are waited for after the loop.
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: %[[INIT]]
// CHECK: gpu.return
func.func @load_ahead(%a: memref<?x16xf32>, %b: memref<32x16xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %init = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
  %first = memref.subview %a[0, 0] [32, 16] [1, 1] : memref<?x16xf32> to memref<32x16xf32, strided<[16, 1]>>
  linalg.copy ins(%first : memref<32x16xf32, strided<[16, 1]>>) outs(%init : memref<32x16xf32, #gpu.address_space<workgroup>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %init) -> (memref<32x16xf32, #gpu.address_space<workgroup>>) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%t : memref<32x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<32x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    %row = arith.muli %i, %c32 : index
    %next = memref.alloc() : memref<32x16xf32, #gpu.address_space<workgroup>>
    %rows = memref.subview %a[%row, 0] [32, 16] [1, 1] : memref<?x16xf32> to memref<32x16xf32, strided<[16, 1], offset: ?>>
    linalg.copy ins(%rows : memref<32x16xf32, strided<[16, 1], offset: ?>>) outs(%next : memref<32x16xf32, #gpu.address_space<workgroup>>)
    scf.yield %next : memref<32x16xf32, #gpu.address_space<workgroup>>
  }
  return
}
