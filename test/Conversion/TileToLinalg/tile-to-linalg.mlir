// RUN: kda-opt %s --split-input-file --convert-tile-to-linalg | FileCheck %s
// RUN: kda-opt %s --split-input-file --convert-tile-to-linalg --cse | FileCheck %s --check-prefix=CSE

// Masked load: a subview clamped to the box mask, padded to the tile shape.
// CHECK-LABEL: func.func @load_masked
// CHECK-SAME: (%[[M:.*]]: memref<?x?x4x64xf32>, %[[R:.*]]: index, %[[END:.*]]: index)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[END]], %[[R]] : index
// CHECK: %[[CAP:.*]] = arith.minsi %[[LEFT]], %[[C16]] : index
// CHECK: %[[ROWS:.*]] = arith.maxsi %[[CAP]], %[[C0]] : index
// CHECK: %[[SV:.*]] = memref.subview %[[M]][%{{.*}}, %[[R]], %{{.*}}, %{{.*}}] [1, %[[ROWS]], 1, %{{.*}}] [1, 1, 1, 1] : memref<?x?x4x64xf32> to memref<?x?xf32, strided<[256, 1], offset: ?>>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[SV]] restrict
// CHECK: %[[P:.*]] = tensor.pad %[[T]] low[0, 0] high[
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<?x?xf32> to tensor<16x32xf32>
// CHECK: return %[[P]]
func.func @load_masked(%m: memref<?x?x4x64xf32>, %r: index, %end: index) -> tensor<16x32xf32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = tile.load %m[%c0, %r, %c0, %c0] bounds [%end, %c64] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
  return %t : tensor<16x32xf32>
}

// -----

// Default bounds are the memref sizes; padding is configurable.
// CHECK-LABEL: func.func @load_default_bounds
// CHECK-DAG: %[[PAD:.*]] = arith.constant -1.000000e+00 : f16
// CHECK-DAG: %[[D:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf16>
// CHECK: arith.subi %[[D]], %{{.*}} : index
// CHECK: tensor.pad
// CHECK: tensor.yield %[[PAD]] : f16
func.func @load_default_bounds(%m: memref<?xf16>, %i: index) -> tensor<8xf16> attributes {tile.kernel} {
  %t = tile.load %m[%i] dims [0] {padding = -1.0 : f16} : memref<?xf16> -> tensor<8xf16>
  return %t : tensor<8xf16>
}

// -----

// Masked store: the in-range part is materialized into a clamped subview.
// CHECK-LABEL: func.func @store_masked
// CHECK-SAME: (%[[V:.*]]: tensor<16x16xf32>, %[[M:.*]]: memref<?x16xf32>, %[[R:.*]]: index)
// CHECK: %[[SV:.*]] = memref.subview %[[M]][%[[R]], %{{.*}}] [%[[ROWS:.*]], %[[COLS:.*]]] [1, 1]
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[V]][0, 0] [%[[ROWS]], %[[COLS]]] [1, 1]
// CHECK: bufferization.materialize_in_destination %[[PART]] in restrict writable %[[SV]]
func.func @store_masked(%v: tensor<16x16xf32>, %m: memref<?x16xf32>, %r: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  tile.store %v, %m[%r, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dot_ieee
// CHECK-NOT: tile.tf32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK-NOT: arith.bitcast
func.func @dot_ieee(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {tile.kernel} {
  %d = tile.dot %a, %b, %c : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// tf32 rounds both operands to nearest (ties away) on 10 mantissa bits.
// CHECK-LABEL: func.func @dot_tf32
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.addi %{{.*}}, %c4096_i32
// CHECK: arith.andi %{{.*}}, %c-8192_i32
// CHECK: linalg.generic
// CHECK: %[[MM:.*]] = linalg.matmul {tile.tf32}
// CHECK-NOT: linalg.matmul
// CHECK: return %[[MM]]
func.func @dot_tf32(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {tile.kernel} {
  %d = tile.dot %a, %b, %c precision = tf32 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// tf32x3: lo*hi + hi*lo + hi*hi, three matmuls chained through the accumulator.
// CHECK-LABEL: func.func @dot_tf32x3
// CHECK: %[[M1:.*]] = linalg.matmul {tile.tf32} ins(%{{.*}}, %{{.*}} : {{.*}}) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK: %[[M2:.*]] = linalg.matmul {tile.tf32} ins({{.*}}) outs(%[[M1]] : tensor<16x8xf32>)
// CHECK: %[[M3:.*]] = linalg.matmul {tile.tf32} ins({{.*}}) outs(%[[M2]] : tensor<16x8xf32>)
// CHECK: return %[[M3]]
func.func @dot_tf32x3(%a: tensor<16x8xf32>, %b: tensor<8x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {tile.kernel} {
  %d = tile.dot %a, %b, %c precision = tf32x3 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// A dot of transposed tiles reads them in place: linalg.matmul with
// transposed indexing maps on the tiles that tile.trans would transpose
// (rounded to tf32 before, as they are), and no linalg.transpose.
// CHECK-DAG: #[[$AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$CM:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_transposed
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[$AT]], #[[$BT]], #[[$CM]]] {tile.tf32} ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
func.func @dot_transposed(%at: tensor<8x16xf32>, %bt: tensor<8x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {tile.kernel} {
  %a = tile.trans %at : tensor<8x16xf32> -> tensor<16x8xf32>
  %b = tile.trans %bt : tensor<8x8xf32> -> tensor<8x8xf32>
  %d = tile.dot %a, %b, %c precision = tf32 : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// bf16 operands: an exact product, precision does not apply.
// CHECK-LABEL: func.func @dot_bf16
// CHECK-NOT: arith.bitcast
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xbf16>, tensor<16x8xbf16>) outs(%{{.*}} : tensor<16x8xf32>)
func.func @dot_bf16(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> attributes {tile.kernel} {
  %d = tile.dot %a, %b, %c precision = tf32 : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// A reduction is a generic whose reduced dimension is a reduction loop.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$COLS]]], iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<16x64xf32>) outs(%[[INIT]] : tensor<64xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.maximumf %[[ACC]], %[[IN]] : f32
func.func @reduce_max(%t: tensor<16x64xf32>) -> tensor<64xf32> attributes {tile.kernel} {
  %r = tile.reduce max %t dim 0 : tensor<16x64xf32> -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// An inclusive scan is a generic over (i, k, j) summing the j <= i inputs.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @scan_add
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: %[[LE:.*]] = arith.cmpi ule, %[[J]], %[[I]] : index
// CHECK: arith.select %[[LE]]
// CHECK: arith.addf
func.func @scan_add(%t: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  %s = tile.scan add %t dim 0 : tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @scan_reverse_dim1
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = linalg.index 2 : index
// CHECK: arith.cmpi uge, %[[J]], %[[I]] : index
func.func @scan_reverse_dim1(%t: tensor<4x8xi32>) -> tensor<4x8xi32> attributes {tile.kernel} {
  %s = tile.scan add %t dim 1 reverse : tensor<4x8xi32>
  return %s : tensor<4x8xi32>
}

// -----

// A broadcast is a generic reading its input through a projection.
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @data_movement
// CHECK: linalg.transpose ins(%{{.*}} : tensor<16x32xf32>) outs(%{{.*}} : tensor<32x16xf32>) permutation = [1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<32xf32>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<16x16xf32>)
func.func @data_movement(%t: tensor<16x32xf32>, %v: tensor<32xf32>, %s: f32)
    -> (tensor<32x16xf32>, tensor<16x32xf32>, tensor<16x16xf32>) attributes {tile.kernel} {
  %tr = tile.trans %t : tensor<16x32xf32> -> tensor<32x16xf32>
  %b = tile.broadcast %v dims [0] : tensor<32xf32> -> tensor<16x32xf32>
  %f = tile.splat %s : f32 -> tensor<16x16xf32>
  return %tr, %b, %f : tensor<32x16xf32>, tensor<16x32xf32>, tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @masks
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : index
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: arith.index_cast %[[R]] : index to i32
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK: arith.cmpi sle, %[[D]], %[[M1]] : index
func.func @masks() -> (tensor<16x16xi32>, tensor<16x16xi1>) attributes {tile.kernel} {
  %rows = tile.iota dim 0 : tensor<16x16xi32>
  %strict = tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
  return %rows, %strict : tensor<16x16xi32>, tensor<16x16xi1>
}

// -----

// Elementwise math on tiles becomes linalg.generic; chains fuse, and splat
// constants become scalars inside the fused body.
// CHECK-LABEL: func.func @elementwise_chain
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.mulf %{{.*}}, %cst
// CHECK-NOT: linalg.generic
func.func @elementwise_chain(%t: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  %cst = arith.constant dense<2.0> : tensor<16x16xf32>
  %e = math.exp %t : tensor<16x16xf32>
  %m = arith.mulf %e, %cst : tensor<16x16xf32>
  return %m : tensor<16x16xf32>
}

// -----

// Varlen lookup: binary search over cu_seqlens.
// CHECK-LABEL: func.func @varlen
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?xi64>
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: arith.divui
// CHECK: memref.load %{{.*}} : memref<?xi64>
// CHECK: return
func.func @varlen(%cu: memref<?xi64>) -> (index, index, index, index, i1) attributes {tile.kernel} {
  %p = tile.program_id y
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %p chunk_size 64 : memref<?xi64>
  return %n, %c, %bos, %len, %ok : index, index, index, index, i1
}

// -----

// Outside kernels nothing changes; program ids stay for the grid passes.
// CHECK-LABEL: func.func @host
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
func.func @host(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
// CHECK-LABEL: func.func @keeps_program_id
// CHECK: tile.program_id z
func.func @keeps_program_id() -> index attributes {tile.kernel} {
  %p = tile.program_id z
  return %p : index
}

// -----

// Elementwise producers and broadcasts fuse into a reduction that reads
// each element once: one generic computes sum_j exp2(x[i, j] - y[j]).
// CHECK-LABEL: func.func @fuse_into_reduce
// CHECK: linalg.fill
// CHECK-NEXT: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<16x32xf32>, tensor<32xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp2
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @fuse_into_reduce(%x: tensor<16x32xf32>, %y: tensor<32xf32>) -> tensor<16xf32> attributes {tile.kernel} {
  %b = tile.broadcast %y dims [0] : tensor<32xf32> -> tensor<16x32xf32>
  %d = arith.subf %x, %b : tensor<16x32xf32>
  %e = math.exp2 %d : tensor<16x32xf32>
  %r = tile.reduce add %e dim 1 : tensor<16x32xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A broadcast reads each element of its input once per copy: the exp2 of a
// 64-element row stays a generic of its own (64 exp2), and only the
// broadcast fuses into the multiply (a 64 x 32 generic reading the row
// through a projection, with no exp2 in it).
// CHECK-LABEL: func.func @no_math_through_broadcast
// CHECK: %[[E:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%arg0 : tensor<64xf32>)
// CHECK: math.exp2
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg1, %[[E]] : tensor<64x32xf32>, tensor<64xf32>)
// CHECK-NOT: math.exp2
// CHECK: arith.mulf
// CHECK-NOT: math.exp2
// CHECK: return
func.func @no_math_through_broadcast(%g: tensor<64xf32>, %s: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  %e = math.exp2 %g : tensor<64xf32>
  %b = tile.broadcast %e dims [1] : tensor<64xf32> -> tensor<64x32xf32>
  %m = arith.mulf %s, %b : tensor<64x32xf32>
  return %m : tensor<64x32xf32>
}

// -----

// A scan reads each input element once per output row: its input's exp2
// stays a separate generic, evaluated once per element.
// CHECK-LABEL: func.func @no_fusion_into_scan
// CHECK: %[[E:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x32xf32>)
// CHECK: math.exp2
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[E]] : tensor<64x32xf32>)
// CHECK-NOT: math.exp2
func.func @no_fusion_into_scan(%x: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  %e = math.exp2 %x : tensor<64x32xf32>
  %s = tile.scan add %e dim 0 : tensor<64x32xf32>
  return %s : tensor<64x32xf32>
}

// -----

// Two reductions over the same domain that read a common input become one
// loop nest with an output each (an input read twice through the same map
// is one operand); after CSE the exp2 they share is computed once per
// element.
// CHECK-LABEL: func.func @sibling_reductions
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK-NOT: linalg.generic
// CSE-LABEL: func.func @sibling_reductions
// CSE: %[[R:.*]]:2 = linalg.generic
// CSE-SAME: iterator_types = ["reduction", "parallel"]
// CSE-SAME: ins(%arg1, %arg0, %arg2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
// CSE-COUNT-1: math.exp2
// CSE-NOT: math.exp2
// CSE: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CSE: return %[[R]]#0, %[[R]]#1
func.func @sibling_reductions(%g: tensor<8x4xf32>, %q: tensor<8x4xf32>, %k: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {tile.kernel} {
  %e = math.exp2 %g : tensor<8x4xf32>
  %a = arith.mulf %q, %e : tensor<8x4xf32>
  %b = arith.mulf %k, %e : tensor<8x4xf32>
  %ra = tile.reduce add %a dim 0 : tensor<8x4xf32> -> tensor<4xf32>
  %rb = tile.reduce add %b dim 0 : tensor<8x4xf32> -> tensor<4xf32>
  return %ra, %rb : tensor<4xf32>, tensor<4xf32>
}

// -----

// A reduction whose body uses a value computed after its sibling (the
// scalar %s, folded into the body through its splat) is not merged into
// that sibling: the merged body would use %s before it exists.
// CHECK-LABEL: func.func @sibling_capture_after
// CHECK: linalg.generic
// CHECK: %[[S:.*]] = arith.addf %arg3, %arg4 : f32
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[S]] : f32
func.func @sibling_capture_after(%g: tensor<8x4xf32>, %q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %x: f32, %y: f32) -> (tensor<4xf32>, tensor<4xf32>) attributes {tile.kernel} {
  %e = math.exp2 %g : tensor<8x4xf32>
  %a = arith.mulf %q, %e : tensor<8x4xf32>
  %ra = tile.reduce add %a dim 0 : tensor<8x4xf32> -> tensor<4xf32>
  %s = arith.addf %x, %y : f32
  %sp = tile.splat %s : f32 -> tensor<8x4xf32>
  %b0 = arith.mulf %k, %e : tensor<8x4xf32>
  %b = arith.mulf %b0, %sp : tensor<8x4xf32>
  %rb = tile.reduce add %b dim 0 : tensor<8x4xf32> -> tensor<4xf32>
  return %ra, %rb : tensor<4xf32>, tensor<4xf32>
}

// -----

// A transposed tile read by a reduction is read in place through a
// permuted map: the transpose is never stored. The conversion (extf) stays
// its own op: fused into the reduction it would run once per use (16
// times per element here) instead of once.
// CHECK-DAG: #[[$KI:.*]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-LABEL: func.func @transpose_into_reduction
// CHECK-NOT: linalg.transpose
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[$KI]], {{.*}}], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[X]], %arg1 : tensor<16x32xf32>, tensor<32x16x16xf32>)
// CHECK-NOT: arith.extf
// CHECK: return
func.func @transpose_into_reduction(%q: tensor<16x32xbf16>, %w: tensor<32x16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  %x = arith.extf %q : tensor<16x32xbf16> to tensor<16x32xf32>
  %t = tile.trans %x : tensor<16x32xf32> -> tensor<32x16xf32>
  %b = tile.broadcast %t dims [2] : tensor<32x16xf32> -> tensor<32x16x16xf32>
  %p = arith.mulf %b, %w : tensor<32x16x16xf32>
  %r = tile.reduce add %p dim 0 : tensor<32x16x16xf32> -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
