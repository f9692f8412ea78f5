// RUN: kda-opt %s -split-input-file -verify-diagnostics

// Every error of the tile op verifiers, and a few of the ODS constraints.

//===----------------------------------------------------------------------===//
// #tile.tuning
//===----------------------------------------------------------------------===//

// expected-error @+1 {{threads must be in [1, 1024], got 2048}}
func.func @tuning_too_many_threads() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 2048>} {
  return
}

// -----

// expected-error @+1 {{threads must be in [1, 1024], got 0}}
func.func @tuning_no_threads() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 0>} {
  return
}

// -----

// expected-error @+1 {{max_registers must be in [0, 255] (0 for no limit), got 300}}
func.func @tuning_too_many_registers() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 300>} {
  return
}

// -----

// expected-error @+1 {{max_live_bytes must be at least 0 (0 for no bound), got -1}}
func.func @tuning_negative_live_bytes() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_live_bytes = -1>} {
  return
}

// -----

// expected-error @+1 {{block_k must be at least 0 (0 for no K tiles), got -16}}
func.func @tuning_negative_block_k() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, block_k = -16>} {
  return
}

// -----

// expected-error @+1 {{block_v must be at least 0 (0 when V is not split), got -32}}
func.func @tuning_negative_block_v() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, block_v = -32>} {
  return
}

// -----

// expected-error @+1 {{stages must be in [1, 4], got 5}}
func.func @tuning_five_stages() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, stages = 5>} {
  return
}

// -----

// expected-error @+1 {{stages must be in [1, 4], got 0}}
func.func @tuning_no_stage() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, stages = 0>} {
  return
}

// -----

// expected-error @+1 {{struct is missing required parameter: threads}}
func.func @tuning_missing_threads() attributes {tile.kernel, tile.tuning = #tile.tuning<max_registers = 128>} {
  return
}

// -----

// expected-error @+2 {{expected 'true' or 'false'}}
// expected-error @+1 {{failed to parse Tile_TuningAttr parameter 'speculate_loads' which is to be a `bool`}}
func.func @tuning_flag_not_bool() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, speculate_loads = 1>} {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::kda::tile::KernelMapping to be one of: shared_memory, registers}}
// expected-error @+1 {{failed to parse Tile_TuningAttr parameter 'mapping'}}
func.func @tuning_unknown_mapping() attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, mapping = stack>} {
  return
}

// -----

// expected-error @+1 {{'tile.tuning' must be a #tile.tuning attribute, got 64 : i64}}
func.func @tuning_not_a_tuning() attributes {tile.kernel, tile.tuning = 64 : i64} {
  return
}

// -----

func.func @partition_not_a_string(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.partition' must be a string, got 64 : i64}}
  tile.launch @k grid [%n, %c1, %c1] {tile.partition = 64 : i64}
  return
}
func.func @k() attributes {tile.kernel} {
  return
}

// -----

// expected-error @+1 {{'tile.partition' is an attribute of tile.launch}}
func.func @partition_not_on_a_launch() attributes {tile.kernel, tile.partition = "chunks64"} {
  return
}

// -----

//===----------------------------------------------------------------------===//
// program_id / num_programs
//===----------------------------------------------------------------------===//

func.func @program_id_outside_kernel() -> index {
  // expected-error @+1 {{'tile.program_id' op is only valid inside a tile kernel (a func.func with the 'tile.kernel' attribute)}}
  %p = tile.program_id x
  return %p : index
}

// -----

func.func @program_id_other_attribute() -> index attributes {tile.tuning = #tile.tuning<threads = 128>} {
  // expected-error @+1 {{'tile.program_id' op is only valid inside a tile kernel}}
  %p = tile.program_id z
  return %p : index
}

// -----

// expected-error @+1 {{'tile.program_id' op is only valid inside a tile kernel}}
%p = tile.program_id y

// -----

func.func @num_programs_outside_kernel(%cond: i1) -> index {
  %r = scf.if %cond -> index {
    // expected-error @+1 {{'tile.num_programs' op is only valid inside a tile kernel (a func.func with the 'tile.kernel' attribute)}}
    %n = tile.num_programs x
    scf.yield %n : index
  } else {
    %c0 = arith.constant 0 : index
    scf.yield %c0 : index
  }
  return %r : index
}

// -----

func.func @program_id_bad_axis() -> index attributes {tile.kernel} {
  // expected-error @+3 {{expected ::mlir::kda::tile::Axis to be one of: x, y, z}}
  // The second error points at the token after the bad keyword.
  // expected-error @+2 {{failed to parse Tile_AxisAttr parameter 'value'}}
  %p = tile.program_id w
  return %p : index
}

// -----

func.func @program_id_bad_result_type() -> i32 attributes {tile.kernel} {
  // expected-error @+1 {{'tile.program_id' op result #0 must be index, but got 'i32'}}
  %p = "tile.program_id"() <{axis = #tile<axis x>}> : () -> i32
  return %p : i32
}

//===----------------------------------------------------------------------===//
// load / store addressing
//===----------------------------------------------------------------------===//

// -----

func.func @load_too_few_indices(%g: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op expects one index per memref dimension (4), got 2}}
  %t = tile.load %g[%c0, %c0] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_too_many_indices(%v: tensor<64xf32>, %out: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op expects one index per memref dimension (1), got 2}}
  tile.store %v, %out[%c0, %c0] dims [0] : tensor<64xf32>, memref<?xf32>
  return
}

// -----

func.func @load_dims_count(%g: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'dims' must list one memref dimension per tile dimension (2), got 1}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [1] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_dims_count(%v: tensor<64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op 'dims' must list one memref dimension per tile dimension (1), got 2}}
  tile.store %v, %out[%c0, %c0] dims [0, 1] : tensor<64xf32>, memref<?x64xf32>
  return
}

// -----

func.func @load_dynamic_tile(%g: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op tile type must be statically shaped, got 'tensor<?x64xf32>'}}
  %t = tile.load %g[%c0, %c0] dims [0, 1] : memref<?x64xf32> -> tensor<?x64xf32>
  return
}

// -----

func.func @store_dynamic_tile(%v: tensor<16x?xf32>, %out: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op tile type must be statically shaped, got 'tensor<16x?xf32>'}}
  tile.store %v, %out[%c0, %c0] dims [0, 1] : tensor<16x?xf32>, memref<?x64xf32>
  return
}

// -----

func.func @load_bounds_count(%g: memref<?x?x4x64xf32>, %end: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'bounds' must give one bound per tile dimension (2), got 1}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] bounds [%end] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_bounds_count(%v: tensor<64xf32>, %out: memref<?xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op 'bounds' must give one bound per tile dimension (1), got 3}}
  tile.store %v, %out[%c0] bounds [%n, %n, %n] dims [0] : tensor<64xf32>, memref<?xf32>
  return
}

// -----

func.func @load_dims_out_of_range(%g: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'dims' entry 4 is not a dimension of the memref (rank 4)}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [1, 4] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_dims_negative(%v: tensor<64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op 'dims' entry -1 is not a dimension of the memref (rank 2)}}
  tile.store %v, %out[%c0, %c0] dims [-1] : tensor<64xf32>, memref<?x64xf32>
  return
}

// -----

func.func @load_dims_duplicate(%g: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'dims' lists dimension 3 twice}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [3, 3] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @load_dims_not_increasing(%g: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'dims' must be increasing}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [3, 1] : memref<?x?x4x64xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_dims_not_increasing(%v: tensor<4x64xf32>, %out: memref<?x?x4x64xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op 'dims' must be increasing}}
  tile.store %v, %out[%c0, %c0, %c0, %c0] dims [3, 2] : tensor<4x64xf32>, memref<?x?x4x64xf32>
  return
}

// -----

func.func @load_element_type(%g: memref<?x?x4x64xbf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op tile element type 'f32' must match the memref element type 'bf16'}}
  %t = tile.load %g[%c0, %c0, %c0, %c0] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @store_element_type(%v: tensor<64x64xf32>, %out: memref<?x?x4x64xf16>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op tile element type 'f32' must match the memref element type 'f16'}}
  tile.store %v, %out[%c0, %c0, %c0, %c0] dims [1, 3] : tensor<64x64xf32>, memref<?x?x4x64xf16>
  return
}

// -----

func.func @load_padding_type(%g: memref<?x64xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{'tile.load' op 'padding' must have the tile element type 'f32', got 0.000000e+00 : f16}}
  %t = tile.load %g[%c0, %c0] bounds [%n, %c64] dims [0, 1] {padding = 0.0 : f16} : memref<?x64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @load_padding_integer_for_float(%g: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'padding' must have the tile element type 'f32', got 0 : i32}}
  %t = tile.load %g[%c0] dims [0] {padding = 0 : i32} : memref<?xf32> -> tensor<16xf32>
  return
}

// -----

func.func @load_padding_untyped(%g: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op 'padding' must have the tile element type 'f32', got "zero"}}
  %t = tile.load %g[%c0] dims [0] {padding = "zero"} : memref<?xf32> -> tensor<16xf32>
  return
}

// -----

func.func @load_from_tensor(%g: tensor<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{custom op 'tile.load' invalid kind of type specified: expected builtin.memref, but found 'tensor<?xf32>'}}
  %t = tile.load %g[%c0] dims [0] : tensor<?xf32> -> tensor<16xf32>
  return
}

// -----

func.func @load_from_tensor_generic(%g: tensor<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op operand #0 must be memref of any type values, but got 'tensor<?xf32>'}}
  %t = "tile.load"(%g, %c0) <{dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<?xf32>, index) -> tensor<16xf32>
  return
}

// -----

func.func @load_bad_segments(%g: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op operand count (2) does not match with the total size (3) specified in attribute 'operandSegmentSizes'}}
  %t = "tile.load"(%g, %c0) <{dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1>}> : (memref<?xf32>, index) -> tensor<16xf32>
  return
}

// -----

func.func @store_vector_value(%v: vector<16xf32>, %out: memref<?xf32>) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.store' op operand #0 must be ranked tensor of any type values, but got 'vector<16xf32>'}}
  "tile.store"(%v, %out, %c0) <{dims = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (vector<16xf32>, memref<?xf32>, index) -> ()
  return
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

// -----

func.func @dot_rank(%a: tensor<16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op operands must be 2-D tiles}}
  %c = tile.dot %a, %b, %acc : tensor<16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_dynamic(%a: tensor<?x16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op operands must be statically shaped}}
  %c = tile.dot %a, %b, %acc : tensor<?x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_contraction(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op contraction sizes differ: a is 'tensor<16x32xf32>' and b is 'tensor<16x16xf32>'}}
  %c = tile.dot %a, %b, %acc : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_accumulator_shape(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %acc: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op accumulator must be 16x64, got 'tensor<16x32xf32>'}}
  %c = tile.dot %a, %b, %acc : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @dot_operand_types(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op operands a and b must have the same element type}}
  %c = tile.dot %a, %b, %acc : tensor<16x16xf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_accumulator_f16(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf16>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op accumulator must be f32}}
  %c = tile.dot %a, %b, %acc : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  return
}

// -----

func.func @dot_result_type(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {acc, result} have same type}}
  %c = "tile.dot"(%a, %b, %acc) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf64>
  return
}

// -----

func.func @dot_integer_operands(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.dot' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<16x16xi8>'}}
  %c = tile.dot %a, %b, %acc : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_bad_precision(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %acc: tensor<16x16xf32>) attributes {tile.kernel} {
  // expected-error @+2 {{expected ::mlir::kda::tile::Precision to be one of: ieee, tf32, tf32x3}}
  // expected-error @+1 {{failed to parse Tile_PrecisionAttr parameter 'value'}}
  %c = tile.dot %a, %b, %acc precision = bf16x3 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// reduce / scan
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_dim_too_large(%t: tensor<16x64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op 'dim' = 2 is out of range for a rank-2 tile}}
  %s = tile.reduce add %t dim 2 : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_dim_negative(%t: tensor<16x64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op 'dim' = -1 is out of range for a rank-2 tile}}
  %s = tile.reduce max %t dim -1 : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_rank0(%t: tensor<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op 'dim' = 0 is out of range for a rank-0 tile}}
  %s = tile.reduce add %t dim 0 : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @reduce_result_shape(%t: tensor<16x64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op result must be the input without dimension 0, got 'tensor<16xf32>'}}
  %s = tile.reduce add %t dim 0 : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_result_keeps_dim(%t: tensor<16x64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op result must be the input without dimension 1, got 'tensor<16x1xf32>'}}
  %s = tile.reduce min %t dim 1 : tensor<16x64xf32> -> tensor<16x1xf32>
  return
}

// -----

func.func @reduce_result_element_type(%t: tensor<16x64xbf16>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.reduce' op result must be the input without dimension 1, got 'tensor<16xf32>'}}
  %s = tile.reduce add %t dim 1 : tensor<16x64xbf16> -> tensor<16xf32>
  return
}

// -----

func.func @reduce_bad_kind(%t: tensor<16x64xf32>) attributes {tile.kernel} {
  // expected-error @+2 {{expected ::mlir::kda::tile::CombineKind to be one of: add, max, min}}
  // expected-error @+1 {{failed to parse Tile_CombineKindAttr parameter 'value'}}
  %s = tile.reduce mul %t dim 1 : tensor<16x64xf32> -> tensor<16xf32>
  return
}

// -----

func.func @scan_dim_out_of_range(%t: tensor<64x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.scan' op 'dim' = 2 is out of range for a rank-2 tile}}
  %cs = tile.scan add %t dim 2 : tensor<64x32xf32>
  return
}

// -----

func.func @scan_dim_negative(%t: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.scan' op 'dim' = -1 is out of range for a rank-1 tile}}
  %cs = tile.scan max %t dim -1 reverse : tensor<64xf32>
  return
}

// -----

func.func @scan_result_type(%t: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.scan' op requires the same type for all operands and results}}
  %cs = "tile.scan"(%t) <{dim = 0 : i64, kind = #tile<kind add>}> : (tensor<64xf32>) -> tensor<64xf64>
  return
}

//===----------------------------------------------------------------------===//
// trans / broadcast
//===----------------------------------------------------------------------===//

// -----

func.func @trans_permutation_size(%x: tensor<2x16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op 'permutation' must be a permutation of the input dimensions}}
  %t = tile.trans %x permutation [1, 0] : tensor<2x16x32xf32> -> tensor<16x2x32xf32>
  return
}

// -----

func.func @trans_permutation_repeated(%x: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op 'permutation' must be a permutation of the input dimensions}}
  %t = tile.trans %x permutation [1, 1] : tensor<16x32xf32> -> tensor<32x32xf32>
  return
}

// -----

func.func @trans_permutation_out_of_range(%x: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op 'permutation' must be a permutation of the input dimensions}}
  %t = tile.trans %x permutation [2, 0] : tensor<16x32xf32> -> tensor<32x16xf32>
  return
}

// -----

func.func @trans_result_rank(%x: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op result must have the input's rank and element type}}
  %t = tile.trans %x : tensor<16x32xf32> -> tensor<512xf32>
  return
}

// -----

func.func @trans_result_element_type(%x: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op result must have the input's rank and element type}}
  %t = tile.trans %x : tensor<16x32xf32> -> tensor<32x16xbf16>
  return
}

// -----

func.func @trans_result_shape(%x: tensor<16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op result dimension 0 must be 32, got 16}}
  %t = tile.trans %x : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @trans_result_shape_permuted(%x: tensor<2x16x32xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.trans' op result dimension 2 must be 32, got 2}}
  %t = tile.trans %x permutation [1, 0, 2] : tensor<2x16x32xf32> -> tensor<16x2x2xf32>
  return
}

// -----

func.func @broadcast_rank(%v: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.broadcast' op result rank must be the input rank plus the number of 'dims', got 3}}
  %b = tile.broadcast %v dims [0] : tensor<64xf32> -> tensor<2x16x64xf32>
  return
}

// -----

func.func @broadcast_element_type(%v: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.broadcast' op result must have the input's element type}}
  %b = tile.broadcast %v dims [0] : tensor<64xf32> -> tensor<16x64xf16>
  return
}

// -----

func.func @broadcast_dims_out_of_range(%v: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.broadcast' op 'dims' entry 2 is out of range or repeated}}
  %b = tile.broadcast %v dims [2] : tensor<64xf32> -> tensor<16x64xf32>
  return
}

// -----

func.func @broadcast_dims_repeated(%v: tensor<f32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.broadcast' op 'dims' entry 0 is out of range or repeated}}
  %b = tile.broadcast %v dims [0, 0] : tensor<f32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_result_shape(%v: tensor<64xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.broadcast' op result dimension 0 must match input dimension 0 (64)}}
  %b = tile.broadcast %v dims [1] : tensor<64xf32> -> tensor<16x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// splat / iota / tri_mask
//===----------------------------------------------------------------------===//

// -----

func.func @splat_element_type(%s: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.splat' op result element type must be the scalar's type}}
  %t = tile.splat %s : f32 -> tensor<16x16xf16>
  return
}

// -----

func.func @splat_dynamic(%s: f32) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.splat' op result must be statically shaped}}
  %t = tile.splat %s : f32 -> tensor<?x16xf32>
  return
}

// -----

func.func @splat_vector_value(%s: vector<4xf32>) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.splat' op operand #0 must be floating-point or signless integer or index, but got 'vector<4xf32>'}}
  %t = tile.splat %s : vector<4xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @iota_dynamic() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.iota' op result must be statically shaped}}
  %i = tile.iota dim 0 : tensor<?xi32>
  return
}

// -----

func.func @iota_dim_out_of_range() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.iota' op 'dim' = 2 is out of range for a rank-2 tile}}
  %i = tile.iota dim 2 : tensor<16x16xi32>
  return
}

// -----

func.func @iota_float() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.iota' op result #0 must be ranked tensor of signless integer or index values, but got 'tensor<16xf32>'}}
  %i = tile.iota dim 0 : tensor<16xf32>
  return
}

// -----

func.func @tri_mask_rank(%n: index) attributes {tile.kernel} {
  // expected-error @+1 {{'tile.tri_mask' op result must be a statically shaped 2-D tile}}
  %m = tile.tri_mask lower diagonal 0 : tensor<4x16x16xi1>
  return
}

// -----

func.func @tri_mask_dynamic() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.tri_mask' op result must be a statically shaped 2-D tile}}
  %m = tile.tri_mask upper diagonal 1 : tensor<?x16xi1>
  return
}

// -----

func.func @tri_mask_not_i1() attributes {tile.kernel} {
  // expected-error @+1 {{'tile.tri_mask' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<16x16xi8>'}}
  %m = tile.tri_mask lower diagonal 0 : tensor<16x16xi8>
  return
}

// -----

func.func @tri_mask_missing_side() attributes {tile.kernel} {
  // expected-error @+1 {{custom op 'tile.tri_mask' expected 'lower'}}
  %m = tile.tri_mask diagonal 0 : tensor<16x16xi1>
  return
}

//===----------------------------------------------------------------------===//
// varlen_chunk
//===----------------------------------------------------------------------===//

// -----

func.func @varlen_chunk_zero_chunk(%cu: memref<?xi64>) attributes {tile.kernel} {
  %pid = tile.program_id x
  // expected-error @+1 {{'tile.varlen_chunk' op 'chunk_size' must be positive, got 0}}
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 0 : memref<?xi64>
  return
}

// -----

func.func @varlen_chunk_negative_chunk(%cu: memref<?xi64>) attributes {tile.kernel} {
  %pid = tile.program_id x
  // expected-error @+1 {{'tile.varlen_chunk' op 'chunk_size' must be positive, got -64}}
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size -64 : memref<?xi64>
  return
}

// -----

func.func @varlen_chunk_outside_kernel(%cu: memref<?xi64>, %pid: index) {
  // expected-error @+1 {{'tile.varlen_chunk' op is only valid inside a tile kernel (a func.func with the 'tile.kernel' attribute)}}
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 64 : memref<?xi64>
  return
}

// -----

func.func @varlen_chunk_i32_offsets(%cu: memref<?xi32>) attributes {tile.kernel} {
  %pid = tile.program_id x
  // expected-error @+1 {{'tile.varlen_chunk' op operand #0 must be 1D memref of 64-bit signless integer values, but got 'memref<?xi32>'}}
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 64 : memref<?xi32>
  return
}

// -----

func.func @varlen_chunk_2d_offsets(%cu: memref<2x?xi64>) attributes {tile.kernel} {
  %pid = tile.program_id x
  // expected-error @+1 {{'tile.varlen_chunk' op operand #0 must be 1D memref of 64-bit signless integer values, but got 'memref<2x?xi64>'}}
  %n, %c, %bos, %len, %ok = tile.varlen_chunk %cu, %pid chunk_size 64 : memref<2x?xi64>
  return
}

//===----------------------------------------------------------------------===//
// launch
//===----------------------------------------------------------------------===//

// -----

func.func @launch_missing_kernel(%n: index) {
  // expected-error @+1 {{'tile.launch' op kernel 'no_such_kernel' does not name a func.func (no such symbol)}}
  tile.launch @no_such_kernel grid [%n, %n, %n]
  return
}

// -----

memref.global "private" @launch_not_func_table : memref<4xf32>

func.func @launch_not_func(%n: index) {
  // expected-error @+1 {{'tile.launch' op kernel 'launch_not_func_table' does not name a func.func (it names a 'memref.global')}}
  tile.launch @launch_not_func_table grid [%n, %n, %n]
  return
}

// -----

func.func private @launch_not_kernel_callee(memref<?xf32>)

func.func @launch_not_kernel(%x: memref<?xf32>, %n: index) {
  // expected-error @+1 {{'tile.launch' op 'launch_not_kernel_callee' is not a tile kernel (missing the 'tile.kernel' attribute)}}
  tile.launch @launch_not_kernel_callee grid [%n, %n, %n] args(%x : memref<?xf32>)
  return
}

// -----

func.func @launch_returns_kernel() -> index attributes {tile.kernel} {
  %p = tile.program_id x
  return %p : index
}

func.func @launch_returns(%n: index) {
  // expected-error @+1 {{'tile.launch' op tile kernels must not return values}}
  tile.launch @launch_returns_kernel grid [%n, %n, %n]
  return
}

// -----

func.func @launch_arg_count_kernel(%x: memref<?xf32>, %y: memref<?xf32>) attributes {tile.kernel} {
  return
}

func.func @launch_arg_count(%x: memref<?xf32>, %n: index) {
  // expected-error @+1 {{'tile.launch' op argument types (memref<?xf32>) do not match the parameter types (memref<?xf32>, memref<?xf32>) of kernel 'launch_arg_count_kernel'}}
  tile.launch @launch_arg_count_kernel grid [%n, %n, %n] args(%x : memref<?xf32>)
  return
}

// -----

func.func @launch_arg_types_kernel(%x: memref<?xf32>) attributes {tile.kernel} {
  return
}

func.func @launch_arg_types(%x: memref<16xf32>, %n: index) {
  // expected-error @+1 {{'tile.launch' op argument types (memref<16xf32>) do not match the parameter types (memref<?xf32>) of kernel 'launch_arg_types_kernel'}}
  tile.launch @launch_arg_types_kernel grid [%n, %n, %n] args(%x : memref<16xf32>)
  return
}

// -----

func.func @launch_bad_grid_kernel() attributes {tile.kernel} {
  return
}

func.func @launch_bad_grid(%n: i32) {
  // expected-note @-1 {{prior use here}}
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  tile.launch @launch_bad_grid_kernel grid [%n, %c1, %c1]
  return
}

// -----

func.func @launch_missing_args_kernel(%x: memref<?xf32>) attributes {tile.kernel} {
  return
}

func.func @launch_missing_args(%n: index) {
  // expected-error @+1 {{'tile.launch' op argument types () do not match the parameter types (memref<?xf32>) of kernel 'launch_missing_args_kernel'}}
  tile.launch @launch_missing_args_kernel grid [%n, %n, %n]
  return
}

// -----

func.func @unit_lower_inverse_none() {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects at least one matrix}}
  "tile.unit_lower_inverse"() {operandSegmentSizes = array<i32: 0, 0>} : () -> ()
  return
}

// -----

func.func @unit_lower_inverse_counts(%a: memref<16x16xf32>, %b: memref<16x16xf32>) {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects as many inits as inputs (got 2 inputs and 1 inits)}}
  tile.unit_lower_inverse ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%b : memref<16x16xf32>)
  return
}

// -----

func.func @unit_lower_inverse_mixed(%a: tensor<16x16xf32>, %b: memref<16x16xf32>) {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects all operands to be tiles (ranked tensors) or all to be memrefs}}
  tile.unit_lower_inverse ins(%a : tensor<16x16xf32>) outs(%b : memref<16x16xf32>)
  return
}

// -----

func.func @unit_lower_inverse_not_square(%a: memref<16x8xf32>, %b: memref<16x8xf32>) {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects square, statically shaped 2-D f32 matrices, got 'memref<16x8xf32>' for input #0}}
  tile.unit_lower_inverse ins(%a : memref<16x8xf32>) outs(%b : memref<16x8xf32>)
  return
}

// -----

func.func @unit_lower_inverse_f16(%a: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects square, statically shaped 2-D f32 matrices, got 'tensor<16x16xf16>' for input #0}}
  %x = tile.unit_lower_inverse ins(%a : tensor<16x16xf16>) outs(%a : tensor<16x16xf16>) -> tensor<16x16xf16>
  return %x : tensor<16x16xf16>
}

// -----

func.func @unit_lower_inverse_init_shape(%a: memref<16x16xf32>, %b: memref<8x8xf32>) {
  // expected-error @+1 {{'tile.unit_lower_inverse' op expects init #0 of the shape and element type of its input, got 'memref<8x8xf32>' for 'memref<16x16xf32>'}}
  tile.unit_lower_inverse ins(%a : memref<16x16xf32>) outs(%b : memref<8x8xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// #tile.dist layouts and convert_layout
//===----------------------------------------------------------------------===//

// expected-error @+1 {{#tile.dist 'batch' has 1 entries, 'warps' has 2 (one per tile dimension)}}
func.func private @dist_entries(tensor<16x8xf32, #tile.dist<warps = [1, 1], batch = [1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{#tile.dist 'elems' entries must be positive powers of 2, got 3}}
func.func private @dist_not_power_of_2(tensor<16x12xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 3], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{#tile.dist 'lane_strides' entries must be positive powers of 2, got 0}}
func.func private @dist_zero_stride(tensor<16x8xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [0, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{#tile.dist spreads 64 lanes over its dimensions; a warp has 32}}
func.func private @dist_too_many_lanes(tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [1, 1], lanes = [16, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{lanes of dimension 0 (8 with stride 8) need id bits up to 6, more than the 5 available}}
func.func private @dist_lane_bits(tensor<16x8xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [8, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{lanes of dimension 1 share id bits with another dimension (stride 2, count 4)}}
func.func private @dist_lane_overlap(tensor<16x8xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 2], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{warps of dimension 1 share id bits with another dimension (stride 1, count 2)}}
func.func private @dist_warp_overlap(tensor<64x16xf32, #tile.dist<warps = [4, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{#tile.dist of rank 2 on a tile of rank 1}}
func.func private @dist_rank(tensor<16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

// expected-error @+1 {{#tile.dist covers 8 elements along dimension 1 (warps * batch * outer * lanes * elems), the tile has 16}}
func.func private @dist_shape(tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>)

// -----

#acc = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
func.func @convert_from_plain(%x: tensor<16x8xf32>) -> tensor<16x8xf32, #acc> {
  // expected-error @+1 {{'tile.convert_layout' op input must have a #tile.dist layout, got 'tensor<16x8xf32>'}}
  %y = tile.convert_layout %x : tensor<16x8xf32> -> tensor<16x8xf32, #acc>
  return %y : tensor<16x8xf32, #acc>
}

// -----

#acc1 = #tile.dist<warps = [1, 1], batch = [4, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
#acc4 = #tile.dist<warps = [4, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
func.func @convert_too_many_warps(%x: tensor<64x8xf32, #acc1>) -> tensor<64x8xf32, #acc4> attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  // expected-error @+1 {{'tile.convert_layout' op result layout tells apart 4 warps, the program has 2}}
  %y = tile.convert_layout %x : tensor<64x8xf32, #acc1> -> tensor<64x8xf32, #acc4>
  return %y : tensor<64x8xf32, #acc4>
}

// -----

func.func @convert_shape(%x: tensor<16x8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'tile.convert_layout' op requires the same shape for all operands and results}}
  %y = tile.convert_layout %x : tensor<16x8xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
