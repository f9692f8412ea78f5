// RUN: kda-opt %s --kda-assign-tile-layouts "--convert-tile-to-simt=prefetch=true" --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=AT-LOAD
// Kernels whose tuning asks for two stages are pipelined without the option.
// RUN: sed 's/#tile.tuning<threads = 128>/#tile.tuning<threads = 128, stages = 2>/' %s | kda-opt --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// Three stages: the kept loads copied two trips ahead.
// RUN: sed 's/#tile.tuning<threads = 128>/#tile.tuning<threads = 128, stages = 3>/' %s | kda-opt --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=STAGES3

// The state scan's recurrence with w and kg read at rows 64 i of trip i
// (the rows past %rows padded): both stay in shared memory for the dots,
// and each is copied one trip ahead into a buffer of two 64-row slots.
// - Before the loop, when it runs at all, the copies for trip 0 into slot 0
//   (4 cp.async of 16 bytes per lane and tile, one commit each).
// - In the loop, before the first dot: one wait for all copies and one
//   barrier (trip i's copies are visible, and every thread is past trip
//   i - 1, the last reader of the other slot), then, unless this is the
//   last trip, the copies for trip i + 1 into the other slot.
// - The dots read their fragments with ldmatrix at the row of this trip's
//   slot ((i mod 2) * 64); no other barrier or wait in the loop.
// CHECK-LABEL: func.func @prefetched
// CHECK-DAG: %[[W:.*]] = memref.alloc() : memref<128x72xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[KG:.*]] = memref.alloc() : memref<128x72xbf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy %arg0{{.*}}, %[[W]]
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_copy %arg1{{.*}}, %[[KG]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: %[[SLOT:.*]] = arith.remui %[[I]], %c2
// CHECK: %[[OTHER:.*]] = arith.subi %c1, %[[SLOT]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %c4
// CHECK: scf.if %[[MORE]]
// CHECK: arith.muli %[[NEXT]], %c64
// CHECK-COUNT-4: nvgpu.device_async_copy %arg0{{.*}}, %[[W]]
// CHECK: nvgpu.device_async_copy %arg1{{.*}}, %[[KG]]
// CHECK: %[[ROW:.*]] = arith.muli %[[SLOT]], %c64
// CHECK: nvvm.ldmatrix
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: scf.yield
// With three stages: buffers of three 64-row slots; before the loop the
// copies for trip 0 (slot 0) and for trip 1 (slot 1), each trip's copies
// one cp.async group (no commit per copy); in the loop, a wait that leaves
// one group in flight (trip i + 1's), the barrier, then the copies for trip
// i + 2 into slot (i + 2) mod 3 (trip i - 1's, which the barrier freed)
// unless past the end, and the trip's commit even then. The dots read slot
// i mod 3.
// STAGES3-LABEL: func.func @prefetched
// STAGES3-DAG: %[[W:.*]] = memref.alloc() : memref<192x72xbf16, #gpu.address_space<workgroup>>
// STAGES3-DAG: %[[KG:.*]] = memref.alloc() : memref<192x72xbf16, #gpu.address_space<workgroup>>
// STAGES3-NOT: nvgpu.device_async_create_group
// STAGES3: nvgpu.device_async_copy %arg0[%[[ROW0:.*]], %{{.*}}], %[[W]][%[[ROW0]], %{{.*}}]
// STAGES3: nvvm.cp.async.commit.group
// STAGES3: %[[ROW1:.*]] = arith.addi %[[ROW0]], %c64
// STAGES3: nvgpu.device_async_copy %arg0[%[[ROW1]], %{{.*}}], %[[W]][%[[ROW1]], %{{.*}}]
// STAGES3: nvvm.cp.async.commit.group
// STAGES3: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// STAGES3-NOT: gpu.barrier
// STAGES3: nvvm.cp.async.wait.group 1
// STAGES3-NEXT: gpu.barrier
// STAGES3-NEXT: %[[SLOT:.*]] = arith.remui %[[I]], %c3
// STAGES3-NEXT: %[[AHEAD:.*]] = arith.addi %[[I]], %c2
// STAGES3-NEXT: %[[AHEADSLOT:.*]] = arith.remui %[[AHEAD]], %c3
// STAGES3-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]], %c4
// STAGES3-NEXT: scf.if %[[MORE]]
// STAGES3: arith.muli %[[AHEAD]], %c64
// STAGES3: arith.muli %[[AHEADSLOT]], %c64
// STAGES3: nvgpu.device_async_copy %arg0{{.*}}, %[[W]]
// STAGES3: nvgpu.device_async_copy %arg1{{.*}}, %[[KG]]
// STAGES3: nvvm.cp.async.commit.group
// STAGES3-NEXT: arith.muli %[[SLOT]], %c64
// STAGES3: nvvm.ldmatrix
// STAGES3-COUNT-16: nvvm.mma.sync
// STAGES3-NOT: gpu.barrier
// STAGES3-NOT: nvvm.cp.async.wait.group
// STAGES3: scf.yield
// STAGES3-NOT: nvgpu.device_async_create_group
// The same without prefetching (the default): in every trip, a barrier
// before the copies, and a wait and a barrier before the first dot; one
// slot each.
// AT-LOAD-LABEL: func.func @prefetched
// AT-LOAD: scf.for
// AT-LOAD: memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// AT-LOAD: gpu.barrier
// AT-LOAD: nvgpu.device_async_copy %arg0
// AT-LOAD: nvvm.cp.async.wait.group 0
// AT-LOAD-NEXT: gpu.barrier
func.func @prefetched(%w: memref<?x64xbf16>, %kg: memref<?x64xbf16>, %u: memref<64x32xf32>, %out: memref<64x32xf32>, %rows: index)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<64x32xf32>) {
    %r = arith.muli %i, %c64 : index
    %wt = tile.load %w[%r, %c0] bounds [%rows, %c64] dims [0, 1] : memref<?x64xbf16> -> tensor<64x64xbf16>
    %kt = tile.load %kg[%r, %c0] bounds [%rows, %c64] dims [0, 1] : memref<?x64xbf16> -> tensor<64x64xbf16>
    %ut = tile.load %u[%c0, %c0] dims [0, 1] : memref<64x32xf32> -> tensor<64x32xf32>
    %zv = tile.splat %zero : f32 -> tensor<64x32xf32>
    %sr = arith.truncf %st : tensor<64x32xf32> to tensor<64x32xbf16>
    %ws = tile.dot %wt, %sr, %zv : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    %vn = arith.subf %ut, %ws : tensor<64x32xf32>
    %vr = arith.truncf %vn : tensor<64x32xf32> to tensor<64x32xbf16>
    %ktt = tile.trans %kt permutation [1, 0] : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %n = tile.dot %ktt, %vr, %st : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    scf.yield %n : tensor<64x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}

// A loop whose kept loads read the same rows on every trip is left as it
// was: copies at the load, one slot.
// CHECK-LABEL: func.func @same_rows
// STAGES3-LABEL: func.func @same_rows
// CHECK: scf.for
// CHECK: memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_copy
func.func @same_rows(%w: memref<64x64xbf16>, %out: memref<64x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<64x32xf32>) {
    %wt = tile.load %w[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16>
    %sr = arith.truncf %st : tensor<64x32xf32> to tensor<64x32xbf16>
    %n = tile.dot %wt, %sr, %st : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    scf.yield %n : tensor<64x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}
