// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// Kernels that convert-tile-to-simt lowered (kda.explicit_barriers) order
// their shared-memory accesses with the gpu.barrier ops already in them:
// no barrier is planned after packing. Two buffers whose live ranges do
// not overlap share bytes only where such a barrier separates the last
// access to one from the first access to the other; otherwise a thread
// could still read the first while another writes the second.

// No barrier between %x's last read and %y's first write: distinct bytes.
// CHECK-LABEL: gpu.func @no_barrier
// CHECK-SAME: workgroup(%[[S:.*]] : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-DAG: memref.view %[[S]][%c0{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %[[S]][%c4096{{[_0-9]*}}][] : {{.*}} to memref<64x16xf32, #gpu.address_space<workgroup>>
func.func @no_barrier(%b: memref<64x16xf32>, %v: f32) attributes {tile.kernel, kda.explicit_barriers} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %y = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %v, %x[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %r = memref.load %x[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %r, %y[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %s = memref.load %y[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %s, %b[%t, %c0] : memref<64x16xf32>
  return
}

// -----

// A barrier between them: %y takes %x's bytes.
// CHECK-LABEL: gpu.func @barrier_between
// CHECK-SAME: workgroup(%[[S:.*]] : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
func.func @barrier_between(%b: memref<64x16xf32>, %v: f32) attributes {tile.kernel, kda.explicit_barriers} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %y = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %v, %x[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %r = memref.load %x[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  memref.store %r, %y[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %s = memref.load %y[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %s, %b[%t, %c0] : memref<64x16xf32>
  return
}

// -----

// A barrier inside a branch between them may not run: distinct bytes.
// CHECK-LABEL: gpu.func @barrier_in_branch
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
func.func @barrier_in_branch(%b: memref<64x16xf32>, %v: f32, %c: i1) attributes {tile.kernel, kda.explicit_barriers} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  %y = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %v, %x[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %r = memref.load %x[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  scf.if %c {
    gpu.barrier
  }
  memref.store %r, %y[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %s = memref.load %y[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
  memref.store %s, %b[%t, %c0] : memref<64x16xf32>
  return
}

// -----

// In a loop body, a barrier between them is not enough: %x in the next trip
// would overwrite what a slower thread still reads of %y in this one. With
// one more barrier at the end of the body, they share bytes.
// CHECK-LABEL: gpu.func @loop_once
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK-LABEL: gpu.func @loop_twice
// CHECK-SAME: workgroup(%{{.*}} : memref<4096xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
func.func @loop_once(%b: memref<64x16xf32>, %v: f32, %n: index) attributes {tile.kernel, kda.explicit_barriers} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
    %y = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
    memref.store %v, %x[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = memref.load %x[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %r, %y[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %s = memref.load %y[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
    memref.store %s, %b[%t, %i] : memref<64x16xf32>
  }
  return
}
func.func @loop_twice(%b: memref<64x16xf32>, %v: f32, %n: index) attributes {tile.kernel, kda.explicit_barriers} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
    %y = memref.alloc() : memref<64x16xf32, #gpu.address_space<workgroup>>
    memref.store %v, %x[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = memref.load %x[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %r, %y[%t, %c0] : memref<64x16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %s = memref.load %y[%c0, %t] : memref<64x16xf32, #gpu.address_space<workgroup>>
    memref.store %s, %b[%t, %i] : memref<64x16xf32>
    gpu.barrier
  }
  return
}
