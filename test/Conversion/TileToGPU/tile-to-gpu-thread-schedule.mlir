// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A static iteration space is split over the threads with constant
// per-iteration offsets. Rows of 64 columns over 128 threads: a thread
// keeps column tid mod 64 and takes rows tid / 64 + 2k; 8 x 64 is 4 rows
// per thread, unrolled.
// CHECK-LABEL: gpu.func @column_per_thread
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c64 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c64 : index
// CHECK: memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK: %[[ROW2:.*]] = arith.addi %[[ROW]], %c2 : index
// CHECK: memref.load %arg0[%[[ROW2]], %[[COL]]]
// CHECK: %[[ROW4:.*]] = arith.addi %[[ROW]], %c4 : index
// CHECK: memref.load %arg0[%[[ROW4]], %[[COL]]]
// CHECK: %[[ROW6:.*]] = arith.addi %[[ROW]], %c6 : index
// CHECK: memref.load %arg0[%[[ROW6]], %[[COL]]]
// CHECK-NOT: memref.load %arg0
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @column_per_thread(%a: memref<8x64xf32>, %b: memref<8x64xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x64xf32>) outs(%b : memref<8x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// Rows that do not fill the last step (3 rows, 2 per step) are guarded.
// CHECK-LABEL: gpu.func @guarded_rows
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c64 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c64 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c3 : index
// CHECK: scf.if %[[IN]] {
// CHECK: memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK: %[[ROW2:.*]] = arith.addi %[[ROW]], %c2 : index
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %[[ROW2]], %c3 : index
// CHECK: scf.if %[[IN2]] {
// CHECK: memref.load %arg0[%[[ROW2]], %[[COL]]]
func.func @guarded_rows(%a: memref<3x64xf32>, %b: memref<3x64xf32>) attributes {tile.kernel} {
  linalg.copy ins(%a : memref<3x64xf32>) outs(%b : memref<3x64xf32>)
  return
}

// -----

// When the block divides the columns, a thread takes every row at columns
// tid and tid + 128.
// CHECK-LABEL: gpu.func @columns_per_thread
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.load %arg0[%c0, %[[TID]]]
// CHECK: %[[COL2:.*]] = arith.addi %[[TID]], %c128 : index
// CHECK: memref.load %arg0[%c0, %[[COL2]]]
// CHECK: memref.load %arg0[%c1, %[[TID]]]
// CHECK: memref.load %arg0[%c1, %[[COL2]]]
// CHECK-NOT: memref.load %arg0
func.func @columns_per_thread(%a: memref<2x256xf32>, %b: memref<2x256xf32>) attributes {tile.kernel} {
  linalg.copy ins(%a : memref<2x256xf32>) outs(%b : memref<2x256xf32>)
  return
}

// -----

// Rank 3: the leading coordinates come from the row index.
// CHECK-LABEL: gpu.func @rank3
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c16 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c16 : index
// CHECK: %[[LEAD:.*]]:2 = affine.delinearize_index %[[ROW]] into (4, 8) : index, index
// CHECK: memref.load %arg0[%[[LEAD]]#0, %[[LEAD]]#1, %[[COL]]]
func.func @rank3(%a: memref<4x8x16xf32>, %b: memref<4x8x16xf32>) attributes {tile.kernel} {
  linalg.copy ins(%a : memref<4x8x16xf32>) outs(%b : memref<4x8x16xf32>)
  return
}

// -----

// Neither divides (48 columns, 128 threads): the linearized space is
// strided over the threads.
// CHECK-LABEL: gpu.func @strided
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %[[I:.*]] = %[[TID]] to %c192 step %c128 {
// CHECK: affine.delinearize_index %[[I]] into (4, 48)
func.func @strided(%a: memref<4x48xf32>, %b: memref<4x48xf32>) attributes {tile.kernel} {
  linalg.copy ins(%a : memref<4x48xf32>) outs(%b : memref<4x48xf32>)
  return
}

// -----

// A reduction whose thread takes several outputs runs one reduction loop
// for all of them: out[i, j] = sum_d a[d, i] * b[d, j] over 128 threads
// gives a thread column j = tid mod 16 and rows tid / 16 and tid / 16 + 8,
// so both rows' steps sit in one loop body. The two outputs are carried
// through the loop in registers (loaded before it, stored after it), and
// with no store left in the loop the two loads of b[d, j] become one.
// CHECK-LABEL: gpu.func @jammed_reduction
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c16 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c16 : index
// CHECK: %[[ROW8:.*]] = arith.addi %[[ROW]], %c8 : index
// CHECK: %[[INIT0:.*]] = memref.load %arg2[%[[ROW]], %[[COL]]]
// CHECK: %[[INIT1:.*]] = memref.load %arg2[%[[ROW8]], %[[COL]]]
// CHECK: %[[SUMS:.*]]:2 = scf.for %[[D:.*]] = %c0 to %c32 step %c1 iter_args(%[[ACC0:.*]] = %[[INIT0]], %[[ACC1:.*]] = %[[INIT1]]) -> (f32, f32) {
// CHECK-NOT: memref.store
// CHECK: memref.load %arg0[%[[D]], %[[ROW]]]
// CHECK: %[[B:.*]] = memref.load %arg1[%[[D]], %[[COL]]]
// CHECK: arith.addf %[[ACC0]]
// CHECK: memref.load %arg0[%[[D]], %[[ROW8]]]
// CHECK-NOT: memref.load %arg1
// CHECK: arith.mulf %{{.*}}, %[[B]]
// CHECK: arith.addf %[[ACC1]]
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUMS]]#0, %arg2[%[[ROW]], %[[COL]]]
// CHECK-NEXT: memref.store %[[SUMS]]#1, %arg2[%[[ROW8]], %[[COL]]]
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @jammed_reduction(%a: memref<32x16xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (d, i)>, affine_map<(i, j, d) -> (d, j)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<32x16xf32>, memref<32x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows that do not fill the last step (20 rows, 8 per step) keep one
// reduction loop per output, each inside its guard.
// CHECK-LABEL: gpu.func @guarded_reduction
// CHECK: scf.if
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK-NEXT: scf.for
func.func @guarded_reduction(%a: memref<32x20xf32>, %c: memref<20x16xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (d, i)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : memref<32x20xf32>) outs(%c : memref<20x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction that also reads its output at another element (here the
// transposed one) keeps one loop per output: interleaving the outputs'
// steps could read an element another step already changed.
// CHECK-LABEL: gpu.func @reads_other_output_element
// CHECK: scf.for
// CHECK: scf.for
func.func @reads_other_output_element(%a: memref<32x16xf32>, %c: memref<16x16xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (d, j)>, affine_map<(i, j, d) -> (j, i)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %c : memref<32x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %t: f32, %acc: f32):
    %p = arith.mulf %x, %t : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two reduction dimensions: the inner loop carries the outputs, and the
// outer one then carries the inner loop's results. A mask read at the
// output's own element (it does not change with the reduction indices) is
// loaded once, before both loops.
// CHECK-LABEL: gpu.func @nested_reduction_with_mask
// CHECK: memref.load %arg2[
// CHECK: memref.load %arg2[
// CHECK: memref.load %arg1[
// CHECK: memref.load %arg1[
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args
// CHECK-NOT: memref.store
// CHECK-NOT: memref.load %arg1
// CHECK: scf.yield
// CHECK: scf.yield
// CHECK: memref.store
// CHECK: memref.store
// CHECK-NOT: scf.for
// CHECK: gpu.return
func.func @nested_reduction_with_mask(%a: memref<4x8x16xf32>, %mask: memref<16x16xf32>, %c: memref<16x16xf32>) attributes {tile.kernel} {
  linalg.generic {indexing_maps = [affine_map<(i, j, d, e) -> (d, e, i)>, affine_map<(i, j, d, e) -> (i, j)>, affine_map<(i, j, d, e) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %mask : memref<4x8x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %m: f32, %acc: f32):
    %p = arith.mulf %x, %m : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A jammed reduction over the last dimension of shared-memory rows reads
// four steps' elements per load: the loop steps by 4, each operand row
// comes as one 16-byte-aligned vector.load (ld.shared.v4 in PTX), and the
// body runs once per element. out[i, j] = sum_d a[i, d] * b[j, d].
// CHECK-LABEL: gpu.func @vector_reduction_loads
// CHECK: %[[SUMS:.*]]:2 = scf.for %[[D:.*]] = %c0 to %c32 step %c4 iter_args
// CHECK-COUNT-3: vector.load %{{.*}}[%{{.*}}, %[[D]]] {alignment = 16 : i64} : memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT: memref.load
// CHECK-COUNT-8: arith.addf
// CHECK-NOT: arith.addf
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK: memref.store %[[SUMS]]#0
// CHECK: memref.store %[[SUMS]]#1
func.func @vector_reduction_loads(%x: memref<16x32xf32>, %y: memref<16x32xf32>, %c: memref<16x16xf32>) attributes {tile.kernel} {
  %a = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  %b = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%x : memref<16x32xf32>) outs(%a : memref<16x32xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%y : memref<16x32xf32>) outs(%b : memref<16x32xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<16x32xf32, #gpu.address_space<workgroup>>) outs(%c : memref<16x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction of 30 steps (not a multiple of 4) keeps scalar loads.
// CHECK-LABEL: gpu.func @scalar_reduction_loads
// CHECK: scf.for %{{.*}} = %c0 to %c30 step %c1 iter_args
// CHECK-NOT: vector.load
// CHECK: gpu.return
func.func @scalar_reduction_loads(%x: memref<16x30xf32>, %c: memref<16x16xf32>) attributes {tile.kernel} {
  %a = memref.alloc() : memref<16x30xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%x : memref<16x30xf32>) outs(%a : memref<16x30xf32, #gpu.address_space<workgroup>>)
  linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %a : memref<16x30xf32, #gpu.address_space<workgroup>>, memref<16x30xf32, #gpu.address_space<workgroup>>) outs(%c : memref<16x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
