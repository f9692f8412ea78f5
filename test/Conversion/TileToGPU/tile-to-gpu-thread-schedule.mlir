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
// so both rows' steps sit in one loop body, where the two identical loads
// of b[d, j] become one in LLVM.
// CHECK-LABEL: gpu.func @jammed_reduction
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c16 : index
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c16 : index
// CHECK: scf.for %[[D:.*]] = %c0 to %c32 step %c1 {
// CHECK: memref.load %arg0[%[[D]], %[[ROW]]]
// CHECK: memref.load %arg1[%[[D]], %[[COL]]]
// CHECK: memref.store %{{.*}}, %arg2[%[[ROW]], %[[COL]]]
// CHECK: %[[ROW8:.*]] = arith.addi %[[ROW]], %c8 : index
// CHECK: memref.load %arg0[%[[D]], %[[ROW8]]]
// CHECK: memref.load %arg1[%[[D]], %[[COL]]]
// CHECK: memref.store %{{.*}}, %arg2[%[[ROW8]], %[[COL]]]
// CHECK-NEXT: }
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
