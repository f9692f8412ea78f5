// RUN: kda-opt %s -split-input-file | kda-opt -split-input-file | FileCheck %s
// RUN: kda-opt %s -split-input-file --mlir-print-op-generic | kda-opt -split-input-file | FileCheck %s

// Round trip of every tile op, with its optional parts present and absent.

// CHECK-LABEL: func.func @program_id_axes
// CHECK-SAME: attributes {tile.kernel}
func.func @program_id_axes() -> (index, index, index) attributes {tile.kernel} {
  // CHECK: %[[X:.*]] = tile.program_id x
  // CHECK: %[[Y:.*]] = tile.program_id y
  // CHECK: %[[Z:.*]] = tile.program_id z
  // CHECK: return %[[X]], %[[Y]], %[[Z]] : index, index, index
  %x = tile.program_id x
  %y = tile.program_id y
  %z = tile.program_id z
  return %x, %y, %z : index, index, index
}

// -----

// CHECK-LABEL: func.func @program_id_in_nested_region
func.func @program_id_in_nested_region(%cond: i1) -> index attributes {tile.kernel} {
  // CHECK: scf.if
  // CHECK-NEXT: tile.program_id y
  %r = scf.if %cond -> index {
    %p = tile.program_id y
    scf.yield %p : index
  } else {
    %c0 = arith.constant 0 : index
    scf.yield %c0 : index
  }
  return %r : index
}

// -----

// CHECK-LABEL: func.func @num_programs_axes
func.func @num_programs_axes() -> index attributes {tile.kernel} {
  // CHECK: %[[X:.*]] = tile.num_programs x
  // CHECK: %[[Y:.*]] = tile.num_programs y
  // CHECK: %[[Z:.*]] = tile.num_programs z
  // CHECK: arith.muli %[[X]], %[[Y]] : index
  %x = tile.num_programs x
  %y = tile.num_programs y
  %z = tile.num_programs z
  %xy = arith.muli %x, %y : index
  %n = arith.muli %xy, %z : index
  return %n : index
}

// -----

// CHECK-LABEL: func.func @load_plain
// CHECK-SAME: (%[[G:.*]]: memref<?x?x4x64xf32>)
func.func @load_plain(%g: memref<?x?x4x64xf32>) -> tensor<64x64xf32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %b = tile.program_id z
  // CHECK: tile.load %[[G]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  // CHECK-NOT: bounds
  %t = tile.load %g[%b, %c0, %c0, %c0] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @load_bounds
// CHECK-SAME: (%[[G:.*]]: memref<?x?x4x64xf32>, %[[END:.*]]: index)
func.func @load_bounds(%g: memref<?x?x4x64xf32>, %end: index) -> tensor<64x32xf32> attributes {tile.kernel} {
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %pk = tile.program_id x
  %pt = tile.program_id y
  %pbh = tile.program_id z
  %b = arith.divui %pbh, %c4 : index
  %h = arith.remui %pbh, %c4 : index
  %r = arith.muli %pt, %c64 : index
  %k = arith.muli %pk, %c32 : index
  // CHECK: tile.load %[[G]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] bounds [%[[END]], %{{.*}}] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x32xf32>
  %t = tile.load %g[%b, %r, %h, %k] bounds [%end, %c64] dims [1, 3]
      : memref<?x?x4x64xf32> -> tensor<64x32xf32>
  return %t : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @load_bounds_padding
func.func @load_bounds_padding(%s: memref<?x16xf32>, %n: index) -> tensor<32x16xf32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] dims [0, 1] {padding = 0xFF800000 : f32} : memref<?x16xf32> -> tensor<32x16xf32>
  %t = tile.load %s[%c0, %c0] bounds [%n, %c16] dims [0, 1] {padding = 0xFF800000 : f32}
      : memref<?x16xf32> -> tensor<32x16xf32>
  return %t : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @load_padding_no_bounds
func.func @load_padding_no_bounds(%s: memref<8x128xi32>) -> tensor<128xi32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %row = tile.program_id x
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] dims [1] {padding = -1 : i32} : memref<8x128xi32> -> tensor<128xi32>
  %t = tile.load %s[%row, %c0] dims [1] {padding = -1 : i32} : memref<8x128xi32> -> tensor<128xi32>
  return %t : tensor<128xi32>
}

// -----

// CHECK-LABEL: func.func @load_bf16_strided
func.func @load_bf16_strided(%s: memref<?x64xbf16, strided<[128, 1]>>) -> tensor<16x64xbf16> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] dims [0, 1] : memref<?x64xbf16, strided<[128, 1]>> -> tensor<16x64xbf16>
  %t = tile.load %s[%c0, %c0] dims [0, 1] : memref<?x64xbf16, strided<[128, 1]>> -> tensor<16x64xbf16>
  return %t : tensor<16x64xbf16>
}

// -----

// CHECK-LABEL: func.func @load_scalar_tile
func.func @load_scalar_tile(%s: memref<?xf32>) -> tensor<f32> attributes {tile.kernel} {
  %i = tile.program_id x
  // CHECK: tile.load %{{.*}}[%{{.*}}] dims [] : memref<?xf32> -> tensor<f32>
  %t = tile.load %s[%i] dims [] : memref<?xf32> -> tensor<f32>
  return %t : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @store_plain
// CHECK-SAME: (%[[V:.*]]: tensor<64x64xf32>, %[[OUT:.*]]: memref<?x?x4x64xf32>)
func.func @store_plain(%v: tensor<64x64xf32>, %out: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // CHECK: tile.store %[[V]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] dims [1, 3] : tensor<64x64xf32>, memref<?x?x4x64xf32>
  tile.store %v, %out[%c0, %c0, %c0, %c0] dims [1, 3] : tensor<64x64xf32>, memref<?x?x4x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @store_bounds
// CHECK-SAME: (%[[V:.*]]: tensor<64x32xf32>, %[[OUT:.*]]: memref<?x?x4x64xf32>, %[[END:.*]]: index)
func.func @store_bounds(%v: tensor<64x32xf32>, %out: memref<?x?x4x64xf32>, %end: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %h = tile.program_id y
  // CHECK: tile.store %[[V]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] bounds [%[[END]], %{{.*}}] dims [1, 3] : tensor<64x32xf32>, memref<?x?x4x64xf32>
  tile.store %v, %out[%c0, %c0, %h, %c0] bounds [%end, %c64] dims [1, 3]
      : tensor<64x32xf32>, memref<?x?x4x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @dot_default
func.func @dot_default(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  // The default precision (ieee) is not printed.
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  // CHECK-NOT: precision
  %c = tile.dot %a, %b, %acc : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @dot_ieee
func.func @dot_ieee(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %c = tile.dot %a, %b, %acc precision = ieee : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @dot_tf32
func.func @dot_tf32(%a: tensor<64x64xf32>, %b: tensor<64x32xf32>, %acc: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  %c = tile.dot %a, %b, %acc precision = tf32 : tensor<64x64xf32>, tensor<64x32xf32> -> tensor<64x32xf32>
  return %c : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @dot_tf32x3
func.func @dot_tf32x3(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} precision = tf32x3 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %c = tile.dot %a, %b, %acc precision = tf32x3 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @dot_bf16_operands
func.func @dot_bf16_operands(%a: tensor<16x64xbf16>, %b: tensor<64x16xbf16>) -> tensor<16x16xf32> attributes {tile.kernel} {
  %zero = arith.constant 0.0 : f32
  %acc = tile.splat %zero : f32 -> tensor<16x16xf32>
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x64xbf16>, tensor<64x16xbf16> -> tensor<16x16xf32>
  %c = tile.dot %a, %b, %acc : tensor<16x64xbf16>, tensor<64x16xbf16> -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @dot_chain
func.func @dot_chain(%q: tensor<16x64xf32>, %k: tensor<16x64xf32>, %v: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {tile.kernel} {
  %zero = arith.constant 0.0 : f32
  %z16 = tile.splat %zero : f32 -> tensor<16x16xf32>
  %z32 = tile.splat %zero : f32 -> tensor<16x32xf32>
  // CHECK: %[[KT:.*]] = tile.trans %{{.*}} : tensor<16x64xf32> -> tensor<64x16xf32>
  // CHECK: %[[S:.*]] = tile.dot %{{.*}}, %[[KT]], %{{.*}} precision = tf32 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
  // CHECK: %[[M:.*]] = tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
  // CHECK: %[[A:.*]] = arith.select %[[M]], %[[S]], %{{.*}} : tensor<16x16xi1>, tensor<16x16xf32>
  // CHECK: tile.dot %[[A]], %{{.*}}, %{{.*}} precision = tf32x3 : tensor<16x16xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  %kt = tile.trans %k : tensor<16x64xf32> -> tensor<64x16xf32>
  %s = tile.dot %q, %kt, %z16 precision = tf32 : tensor<16x64xf32>, tensor<64x16xf32> -> tensor<16x16xf32>
  %m = tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
  %a = arith.select %m, %s, %z16 : tensor<16x16xi1>, tensor<16x16xf32>
  %o = tile.dot %a, %v, %z32 precision = tf32x3 : tensor<16x16xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  return %o : tensor<16x32xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_add
func.func @reduce_add(%t: tensor<16x64xf32>) -> tensor<64xf32> attributes {tile.kernel} {
  // CHECK: tile.reduce add %{{.*}} dim 0 : tensor<16x64xf32> -> tensor<64xf32>
  %s = tile.reduce add %t dim 0 : tensor<16x64xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max
func.func @reduce_max(%t: tensor<16x64xf32>) -> tensor<16xf32> attributes {tile.kernel} {
  // CHECK: tile.reduce max %{{.*}} dim 1 : tensor<16x64xf32> -> tensor<16xf32>
  %s = tile.reduce max %t dim 1 : tensor<16x64xf32> -> tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_min
func.func @reduce_min(%t: tensor<4x8x16xi32>) -> tensor<4x16xi32> attributes {tile.kernel} {
  // CHECK: tile.reduce min %{{.*}} dim 1 : tensor<4x8x16xi32> -> tensor<4x16xi32>
  %s = tile.reduce min %t dim 1 : tensor<4x8x16xi32> -> tensor<4x16xi32>
  return %s : tensor<4x16xi32>
}

// -----

// CHECK-LABEL: func.func @reduce_to_scalar
func.func @reduce_to_scalar(%t: tensor<64xf32>) -> tensor<f32> attributes {tile.kernel} {
  // CHECK: tile.reduce add %{{.*}} dim 0 : tensor<64xf32> -> tensor<f32>
  %s = tile.reduce add %t dim 0 : tensor<64xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @scan_add
func.func @scan_add(%t: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  // CHECK: tile.scan add %{{.*}} dim 0 : tensor<64x32xf32>
  // CHECK-NOT: reverse
  %cs = tile.scan add %t dim 0 : tensor<64x32xf32>
  return %cs : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @scan_add_reverse
func.func @scan_add_reverse(%t: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {tile.kernel} {
  // CHECK: tile.scan add %{{.*}} dim 0 reverse : tensor<64x32xf32>
  %cs = tile.scan add %t dim 0 reverse : tensor<64x32xf32>
  return %cs : tensor<64x32xf32>
}

// -----

// CHECK-LABEL: func.func @scan_max_reverse
func.func @scan_max_reverse(%t: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {tile.kernel} {
  // CHECK: tile.scan max %{{.*}} dim 1 reverse : tensor<16x64xf32>
  %cs = tile.scan max %t dim 1 reverse : tensor<16x64xf32>
  return %cs : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func @scan_min
func.func @scan_min(%t: tensor<128xi64>) -> tensor<128xi64> attributes {tile.kernel} {
  // CHECK: tile.scan min %{{.*}} dim 0 : tensor<128xi64>
  %cs = tile.scan min %t dim 0 : tensor<128xi64>
  return %cs : tensor<128xi64>
}

// -----

// CHECK-LABEL: func.func @trans_default
func.func @trans_default(%k: tensor<16x32xf32>) -> tensor<32x16xf32> attributes {tile.kernel} {
  // CHECK: tile.trans %{{.*}} : tensor<16x32xf32> -> tensor<32x16xf32>
  // CHECK-NOT: permutation
  %t = tile.trans %k : tensor<16x32xf32> -> tensor<32x16xf32>
  return %t : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @trans_permutation
func.func @trans_permutation(%x: tensor<2x16x32xf32>) -> tensor<16x2x32xf32> attributes {tile.kernel} {
  // CHECK: tile.trans %{{.*}} permutation [1, 0, 2] : tensor<2x16x32xf32> -> tensor<16x2x32xf32>
  %t = tile.trans %x permutation [1, 0, 2] : tensor<2x16x32xf32> -> tensor<16x2x32xf32>
  return %t : tensor<16x2x32xf32>
}

// -----

// CHECK-LABEL: func.func @trans_permutation_3d_reverse
func.func @trans_permutation_3d_reverse(%x: tensor<2x4x8xbf16>) -> tensor<8x4x2xbf16> attributes {tile.kernel} {
  // CHECK: tile.trans %{{.*}} permutation [2, 1, 0] : tensor<2x4x8xbf16> -> tensor<8x4x2xbf16>
  %t = tile.trans %x permutation [2, 1, 0] : tensor<2x4x8xbf16> -> tensor<8x4x2xbf16>
  return %t : tensor<8x4x2xbf16>
}

// -----

// CHECK-LABEL: func.func @broadcast_rows
func.func @broadcast_rows(%v: tensor<64xf32>) -> tensor<16x64xf32> attributes {tile.kernel} {
  // CHECK: tile.broadcast %{{.*}} dims [0] : tensor<64xf32> -> tensor<16x64xf32>
  %b = tile.broadcast %v dims [0] : tensor<64xf32> -> tensor<16x64xf32>
  return %b : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_columns
func.func @broadcast_columns(%v: tensor<16xf32>) -> tensor<16x64xf32> attributes {tile.kernel} {
  // CHECK: tile.broadcast %{{.*}} dims [1] : tensor<16xf32> -> tensor<16x64xf32>
  %b = tile.broadcast %v dims [1] : tensor<16xf32> -> tensor<16x64xf32>
  return %b : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_two_dims
func.func @broadcast_two_dims(%v: tensor<8xi32>) -> tensor<2x8x4xi32> attributes {tile.kernel} {
  // CHECK: tile.broadcast %{{.*}} dims [0, 2] : tensor<8xi32> -> tensor<2x8x4xi32>
  %b = tile.broadcast %v dims [0, 2] : tensor<8xi32> -> tensor<2x8x4xi32>
  return %b : tensor<2x8x4xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_scalar_tile
func.func @broadcast_scalar_tile(%s: tensor<f32>) -> tensor<4x4xf32> attributes {tile.kernel} {
  // CHECK: tile.broadcast %{{.*}} dims [0, 1] : tensor<f32> -> tensor<4x4xf32>
  %b = tile.broadcast %s dims [0, 1] : tensor<f32> -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @splat_f32
func.func @splat_f32(%scale: f32) -> tensor<16x16xf32> attributes {tile.kernel} {
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<16x16xf32>
  %s = tile.splat %scale : f32 -> tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @splat_index
func.func @splat_index() -> tensor<64xindex> attributes {tile.kernel} {
  %pid = tile.program_id y
  // CHECK: tile.splat %{{.*}} : index -> tensor<64xindex>
  %s = tile.splat %pid : index -> tensor<64xindex>
  return %s : tensor<64xindex>
}

// -----

// CHECK-LABEL: func.func @splat_i1
func.func @splat_i1(%b: i1) -> tensor<8x8xi1> attributes {tile.kernel} {
  // CHECK: tile.splat %{{.*}} : i1 -> tensor<8x8xi1>
  %s = tile.splat %b : i1 -> tensor<8x8xi1>
  return %s : tensor<8x8xi1>
}

// -----

// CHECK-LABEL: func.func @iota_i32
func.func @iota_i32() -> tensor<16x16xi32> attributes {tile.kernel} {
  // CHECK: tile.iota dim 0 : tensor<16x16xi32>
  %rows = tile.iota dim 0 : tensor<16x16xi32>
  return %rows : tensor<16x16xi32>
}

// -----

// CHECK-LABEL: func.func @iota_index
func.func @iota_index() -> tensor<64xindex> attributes {tile.kernel} {
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %base = arith.muli %pid, %c64 : index
  // CHECK: %[[I:.*]] = tile.iota dim 0 : tensor<64xindex>
  // CHECK: %[[B:.*]] = tile.splat %{{.*}} : index -> tensor<64xindex>
  // CHECK: arith.addi %[[B]], %[[I]] : tensor<64xindex>
  %i = tile.iota dim 0 : tensor<64xindex>
  %b = tile.splat %base : index -> tensor<64xindex>
  %offs = arith.addi %b, %i : tensor<64xindex>
  return %offs : tensor<64xindex>
}

// -----

// CHECK-LABEL: func.func @iota_columns_mask
func.func @iota_columns_mask(%n: i64) -> tensor<16x32xi1> attributes {tile.kernel} {
  // CHECK: tile.iota dim 1 : tensor<16x32xi64>
  %cols = tile.iota dim 1 : tensor<16x32xi64>
  %lim = tile.splat %n : i64 -> tensor<16x32xi64>
  %m = arith.cmpi slt, %cols, %lim : tensor<16x32xi64>
  return %m : tensor<16x32xi1>
}

// -----

// CHECK-LABEL: func.func @tri_mask_lower
func.func @tri_mask_lower() -> tensor<16x16xi1> attributes {tile.kernel} {
  // CHECK: tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
  %m = tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
  return %m : tensor<16x16xi1>
}

// -----

// CHECK-LABEL: func.func @tri_mask_lower_strict
func.func @tri_mask_lower_strict(%akk: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {tile.kernel} {
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  // CHECK: tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
  %strict = tile.tri_mask lower diagonal -1 : tensor<16x16xi1>
  %a = arith.select %strict, %akk, %z : tensor<16x16xi1>, tensor<16x16xf32>
  return %a : tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @tri_mask_upper
func.func @tri_mask_upper() -> tensor<16x16xi1> attributes {tile.kernel} {
  // CHECK: tile.tri_mask upper diagonal 0 : tensor<16x16xi1>
  %m = tile.tri_mask upper diagonal 0 : tensor<16x16xi1>
  return %m : tensor<16x16xi1>
}

// -----

// CHECK-LABEL: func.func @tri_mask_upper_strict_rect
func.func @tri_mask_upper_strict_rect() -> tensor<32x64xi1> attributes {tile.kernel} {
  // CHECK: tile.tri_mask upper diagonal 1 : tensor<32x64xi1>
  %m = tile.tri_mask upper diagonal 1 : tensor<32x64xi1>
  return %m : tensor<32x64xi1>
}

// -----

// CHECK-LABEL: func.func @varlen_chunk_load
// CHECK-SAME: (%[[CU:.*]]: memref<?xi64>, %[[G:.*]]: memref<1x?x4x64xf32>)
func.func @varlen_chunk_load(%cu: memref<?xi64>, %g: memref<1x?x4x64xf32>) -> tensor<64x64xf32> attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id y
  // CHECK: %[[N:.*]], %[[C:.*]], %[[BOS:.*]], %[[LEN:.*]], %[[OK:.*]] = tile.varlen_chunk %[[CU]], %{{.*}} chunk_size 64 : memref<?xi64>
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 64 : memref<?xi64>
  %off = arith.muli %c, %c64 : index
  %row = arith.addi %bos, %off : index
  %end = arith.addi %bos, %len : index
  // CHECK: tile.load %[[G]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] bounds [%{{.*}}, %{{.*}}] dims [1, 3]
  %t = tile.load %g[%c0, %row, %c0, %c0] bounds [%end, %c64] dims [1, 3]
      : memref<1x?x4x64xf32> -> tensor<64x64xf32>
  return %t : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @varlen_chunk_static
func.func @varlen_chunk_static(%cu: memref<5xi64>) -> i1 attributes {tile.kernel} {
  %pid = tile.program_id x
  // CHECK: tile.varlen_chunk %{{.*}}, %{{.*}} chunk_size 32 : memref<5xi64>
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 32 : memref<5xi64>
  return %ok : i1
}

// -----

// CHECK-LABEL: func.func @launch_args_kernel
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>}
func.func @launch_args_kernel(%g: memref<?x?x4x64xf32>, %G: memref<?x?x4x64xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  %cs = tile.scan add %t dim 0 : tensor<64x64xf32>
  tile.store %cs, %G[%c0, %c0, %c0, %c0] dims [1, 3] : tensor<64x64xf32>, memref<?x?x4x64xf32>
  return
}

// CHECK-LABEL: func.func @launch_args
// CHECK-SAME: (%[[G:.*]]: memref<?x?x4x64xf32>, %[[OUT:.*]]: memref<?x?x4x64xf32>, %[[NT:.*]]: index, %[[NBH:.*]]: index)
func.func @launch_args(%g: memref<?x?x4x64xf32>, %G: memref<?x?x4x64xf32>, %nt: index, %nbh: index) {
  %c1 = arith.constant 1 : index
  // CHECK: tile.launch @launch_args_kernel grid [%{{.*}}, %[[NT]], %[[NBH]]] args(%[[G]], %[[OUT]] : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>)
  tile.launch @launch_args_kernel grid [%c1, %nt, %nbh]
      args(%g, %G : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @launch_no_args_kernel
func.func @launch_no_args_kernel() attributes {tile.kernel} {
  return
}

// CHECK-LABEL: func.func @launch_no_args
func.func @launch_no_args(%n: index) {
  %c1 = arith.constant 1 : index
  // CHECK: tile.launch @launch_no_args_kernel grid [%{{.*}}, %{{.*}}, %{{.*}}]
  // CHECK-NOT: args
  // CHECK-NEXT: tile.launch @launch_no_args_kernel
  tile.launch @launch_no_args_kernel grid [%n, %c1, %c1]
  tile.launch @launch_no_args_kernel grid [%c1, %c1, %n] {note = "second"}
  return
}

// -----

// CHECK-LABEL: func.func @launch_scalar_args_kernel
func.func @launch_scalar_args_kernel(%x: memref<?xf32>, %alpha: f32, %n: index) attributes {tile.kernel} {
  %pid = tile.program_id x
  %v = tile.load %x[%pid] dims [] : memref<?xf32> -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @launch_scalar_args
func.func @launch_scalar_args(%x: memref<?xf32>, %alpha: f32, %n: index) {
  %c1 = arith.constant 1 : index
  // CHECK: tile.launch @launch_scalar_args_kernel grid [%{{.*}}, %{{.*}}, %{{.*}}] args(%{{.*}}, %{{.*}}, %{{.*}} : memref<?xf32>, f32, index)
  tile.launch @launch_scalar_args_kernel grid [%n, %c1, %c1] args(%x, %alpha, %n : memref<?xf32>, f32, index)
  return
}

// -----

// CHECK-LABEL: func.func @unit_lower_inverse_tiles
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x16xf32>
// CHECK: %{{.*}}:2 = tile.unit_lower_inverse ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x16xf32>) outs(%[[E]], %[[E]] : tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>, tensor<16x16xf32>
func.func @unit_lower_inverse_tiles(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) attributes {tile.kernel} {
  %e = tensor.empty() : tensor<16x16xf32>
  %x, %y = tile.unit_lower_inverse ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e, %e : tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>, tensor<16x16xf32>
  return %x, %y : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @unit_lower_inverse_buffers
// CHECK: tile.unit_lower_inverse ins(%{{.*}} : memref<8x8xf32>) outs(%{{.*}} : memref<8x8xf32>)
// CHECK-NOT: ->
func.func @unit_lower_inverse_buffers(%a: memref<8x8xf32>, %b: memref<8x8xf32>) attributes {tile.kernel} {
  tile.unit_lower_inverse ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  return
}

// -----

// #tile.tuning: every parameter given, in another order than the printed
// one; parameters at their default value are left out when printed.

// CHECK-LABEL: func.func @tuning_all
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 168, max_live_bytes = 32768, block_k = 16, block_v = 32, speculate_loads = true, hoist_addresses = true, mapping = registers, stages = 2>}
func.func @tuning_all() attributes {tile.kernel, tile.tuning = #tile.tuning<mapping = registers, stages = 2, threads = 64, block_v = 32, block_k = 16, max_registers = 168, max_live_bytes = 32768, hoist_addresses = true, speculate_loads = true>} {
  return
}

// CHECK-LABEL: func.func @tuning_threads_only
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>}
func.func @tuning_threads_only() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  return
}

// CHECK-LABEL: func.func @tuning_defaults_spelled
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>}
func.func @tuning_defaults_spelled() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32, max_registers = 0, max_live_bytes = 0, block_k = 0, block_v = 0, speculate_loads = false, hoist_addresses = false, mapping = shared_memory, stages = 1>} {
  return
}

// CHECK-LABEL: func.func @tuning_some
// CHECK-SAME: attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 1024, max_registers = 255, hoist_addresses = true>}
func.func @tuning_some() attributes {tile.kernel, tile.tuning = #tile.tuning<hoist_addresses = true, threads = 1024, max_registers = 255>} {
  return
}
