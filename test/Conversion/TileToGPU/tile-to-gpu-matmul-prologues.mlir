// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// The state scan's update: S * 2^g (a row vector broadcast along the
// columns) written into the accumulator, then acc += A B on tensor cores.
// The elementwise op is the matmul's prologue: each accumulator register
// starts as S[r, c] * d[r], computed where the matmul would have loaded it,
// so there is no pass over the accumulator in shared memory before the
// matmul and no barrier between the two.
// CHECK-LABEL: gpu.func @decay_prologue
// CHECK-NOT: linalg.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[S:.*]] = memref.load %[[SV:.*]][%[[R:.*]], %[[C:.*]]] : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[D:.*]] = memref.load %{{.*}}[%[[R]]] : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[INIT:.*]] = arith.mulf %[[S]], %[[D]] : f32
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mma.sync {{.*}} C[%[[INIT]],
// CHECK-NOT: linalg.
// CHECK: gpu.return
func.func @decay_prologue(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>, %s: memref<16x16xf32>, %d: memref<16xf32>, %o: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %ta = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %tb = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %ts = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  %td = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  %acc = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x16xbf16>) outs(%ta : memref<16x16xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%b : memref<16x16xbf16>) outs(%tb : memref<16x16xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%s : memref<16x16xf32>) outs(%ts : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%d : memref<16xf32>) outs(%td : memref<16xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ts, %td : memref<16x16xf32, #gpu.address_space<workgroup>>, memref<16xf32, #gpu.address_space<workgroup>>) outs(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  }
  linalg.matmul ins(%ta, %tb : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>) outs(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%o : memref<16x16xf32>)
  return
}

// -----

// An elementwise op that reads the accumulator's old values (acc = acc * 2)
// is not a prologue: it stays a pass over shared memory.
// CHECK-LABEL: gpu.func @reads_accumulator
// CHECK: arith.mulf
// CHECK: gpu.barrier
// CHECK: nvvm.mma.sync
func.func @reads_accumulator(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>, %s: memref<16x16xf32>, %o: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %two = arith.constant 2.0 : f32
  %ta = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %tb = memref.alloc() : memref<16x16xbf16, #gpu.address_space<workgroup>>
  %acc = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x16xbf16>) outs(%ta : memref<16x16xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%b : memref<16x16xbf16>) outs(%tb : memref<16x16xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%s : memref<16x16xf32>) outs(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>) {
  ^bb0(%z: f32):
    %m = arith.mulf %z, %two : f32
    linalg.yield %m : f32
  }
  linalg.matmul ins(%ta, %tb : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>) outs(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%acc : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%o : memref<16x16xf32>)
  return
}
