// RUN: kda-opt %s --split-input-file --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A 2-D shared buffer whose rows are a multiple of 128 bytes long (here
// 32 x f32) gets 16 bytes of padding per row: it is stored as 16 x 36 f32
// and used through a [16, 32] window with row stride 36, so that column
// accesses to different rows fall in different banks.
// CHECK-LABEL: gpu.func @padded
// CHECK-SAME: workgroup(%[[S:.*]] : memref<2304xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: %[[ROWS:.*]] = memref.view %[[S]][%c0][] : memref<2304xi8, #gpu.address_space<workgroup>> to memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK: %[[WIN:.*]] = memref.subview %[[ROWS]][0, 0] [16, 32] [1, 1] : memref<16x36xf32, #gpu.address_space<workgroup>> to memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[WIN]][%{{.*}}, %{{.*}}] : memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// A subview of the buffer keeps the padded stride.
// CHECK: %[[PART:.*]] = memref.subview %[[WIN]][0, 0] [8, 32] [1, 1] : memref<16x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>> to memref<8x32xf32, strided<[36, 1]>, #gpu.address_space<workgroup>>
// CHECK: memref.load %[[PART]]
func.func @padded(%a: memref<16x32xf32>, %b: memref<8x32xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xf32>) outs(%t : memref<16x32xf32, #gpu.address_space<workgroup>>)
  %part = memref.subview %t[0, 0] [8, 32] [1, 1] : memref<16x32xf32, #gpu.address_space<workgroup>> to memref<8x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
  linalg.copy ins(%part : memref<8x32xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>) outs(%b : memref<8x32xf32>)
  return
}

// -----

// Rows that are not a multiple of 128 bytes (16 x f32 = 64 bytes) keep
// their layout.
// CHECK-LABEL: gpu.func @short_rows
// CHECK-SAME: workgroup(%[[S:.*]] : memref<1024xi8, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: memref.view %[[S]][%c0][] : memref<1024xi8, #gpu.address_space<workgroup>> to memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: strided
func.func @short_rows(%a: memref<16x16xf32>, %b: memref<16x16xf32>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x16xf32>) outs(%t : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%b : memref<16x16xf32>)
  return
}

// -----

// A buffer that a loop hands on unchanged is no longer carried by it (the
// loop runs on the initial buffer; the empty loop then folds away), so it
// is padded like any other.
// CHECK-LABEL: gpu.func @carried
// CHECK: memref.view %{{.*}} to memref<16x36xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.return
func.func @carried(%a: memref<16x32xf32>, %n: index) attributes {tile.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xf32>) outs(%t : memref<16x32xf32, #gpu.address_space<workgroup>>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %t) -> (memref<16x32xf32, #gpu.address_space<workgroup>>) {
    scf.yield %x : memref<16x32xf32, #gpu.address_space<workgroup>>
  }
  linalg.copy ins(%r : memref<16x32xf32, #gpu.address_space<workgroup>>) outs(%a : memref<16x32xf32>)
  return
}

// -----

// bf16 operands of a tensor-core matmul whose rows are 64 or 32 bytes long
// are padded by 16 bytes a row (A: 32 -> 40 columns, B: 16 -> 24):
// ldmatrix reads 8 rows of 16 bytes, which 64-byte rows would put on 2
// bank groups only and 32-byte rows on 4. The accumulator (64 bytes per
// row, f32, not read by ldmatrix) keeps its layout.
// CHECK-LABEL: gpu.func @ldmatrix_operand
// CHECK-DAG: memref.view %{{.*}} to memref<16x40xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %{{.*}} to memref<32x24xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %{{.*}} to memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %{{.*}} : memref<16x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>>
func.func @ldmatrix_operand(%a: memref<16x32xbf16>, %b: memref<32x16xbf16>, %c: memref<16x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %ta = memref.alloc() : memref<16x32xbf16, #gpu.address_space<workgroup>>
  %tb = memref.alloc() : memref<32x16xbf16, #gpu.address_space<workgroup>>
  %tc = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xbf16>) outs(%ta : memref<16x32xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%b : memref<32x16xbf16>) outs(%tb : memref<32x16xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%c : memref<16x16xf32>) outs(%tc : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.matmul ins(%ta, %tb : memref<16x32xbf16, #gpu.address_space<workgroup>>, memref<32x16xbf16, #gpu.address_space<workgroup>>) outs(%tc : memref<16x16xf32, #gpu.address_space<workgroup>>)
  linalg.copy ins(%tc : memref<16x16xf32, #gpu.address_space<workgroup>>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// The same 32 x bf16 rows read by elementwise ops only keep their layout.
// CHECK-LABEL: gpu.func @short_bf16_rows
// CHECK: memref.view %{{.*}} to memref<16x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: strided
// CHECK: gpu.return
func.func @short_bf16_rows(%a: memref<16x32xbf16>, %b: memref<16x32xbf16>) attributes {tile.kernel} {
  %t = memref.alloc() : memref<16x32xbf16, #gpu.address_space<workgroup>>
  linalg.copy ins(%a : memref<16x32xbf16>) outs(%t : memref<16x32xbf16, #gpu.address_space<workgroup>>)
  linalg.copy ins(%t : memref<16x32xbf16, #gpu.address_space<workgroup>>) outs(%b : memref<16x32xbf16>)
  return
}
