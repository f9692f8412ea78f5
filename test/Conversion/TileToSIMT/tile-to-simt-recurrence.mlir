// RUN: kda-opt %s --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s
// RUN: kda-opt %s --kda-assign-tile-layouts --convert-tile-to-simt --canonicalize --cse | FileCheck %s --check-prefix=LDMATRIX

// The state scan's recurrence on registers, with the layouts that
// kda-assign-tile-layouts gives it (warps along N, 8 columns of S each):
// - w (A of w . rd(S)) and kg (whose transpose is A of kg^T . rd(Vn)), 8 KiB
//   each and read whole by every warp, are copied by cp.async into padded
//   shared buffers (16-byte pieces, 4 per lane), with one barrier before
//   both copies (earlier trips' readers are done) and one wait for all
//   copies and a barrier right before the first reader of w (kg's copies
//   were issued before it, so it publishes them too);
// - the dots read A with ldmatrix.x4: w plainly, kg^T with .trans from kg's
//   buffer (4 row blocks x 4 K steps = 16 each);
// - rd(S) and rd(Vn) become B operands in their own warp: 8 movmatrix each
//   (16 bf16 a lane), no shared memory;
// - 16 mma.sync per dot (4 row blocks x 4 K steps, one 8-column block).
// CHECK-LABEL: func.func @recurrence
// CHECK: scf.for
// CHECK: memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: nvgpu.device_async_copy %arg0{{.*}} {bypassL1} : memref<64x64xbf16> to memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-4: nvgpu.device_async_copy %arg1
// CHECK-COUNT-8: llvm.inline_asm "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;"
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: llvm.inline_asm "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;"
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK: scf.yield
// LDMATRIX-LABEL: func.func @recurrence
// LDMATRIX-COUNT-16: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// LDMATRIX-NOT: layout = #nvvm.mma_layout<row>, num
// LDMATRIX-COUNT-16: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// LDMATRIX-NOT: nvvm.ldmatrix
func.func @recurrence(%w: memref<64x64xbf16>, %kg: memref<64x64xbf16>, %u: memref<64x32xf32>, %out: memref<64x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<64x32xf32>) {
    %wt = tile.load %w[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16>
    %kt = tile.load %kg[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16>
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

// A computed A operand (kda-assign-tile-layouts spreads its chain over the
// warps and converts it at the dot): the owners store it once into a
// padded shared buffer between two barriers (their runs of 4 columns as
// 8-byte stores), and the dot reads its A
// fragments with ldmatrix.x4 (16: 4 row blocks x 4 K steps) instead of
// every warp holding the whole tile.
// CHECK-LABEL: func.func @computed_a_operand
// LDMATRIX-LABEL: func.func @computed_a_operand
// CHECK: scf.for
// CHECK: memref.alloc() : memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<64x72xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK: gpu.barrier
// CHECK-COUNT-16: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: scf.yield
func.func @computed_a_operand(%q: memref<64x64xbf16>, %g: memref<64x64xf32>, %out: memref<64x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x32xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<64x32xf32>) {
    %gt = tile.load %g[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> tensor<64x64xf32>
    %qt = tile.load %q[%c0, %c0] dims [0, 1] : memref<64x64xbf16> -> tensor<64x64xbf16>
    %e = math.exp2 %gt : tensor<64x64xf32>
    %qf = arith.extf %qt : tensor<64x64xbf16> to tensor<64x64xf32>
    %m = arith.mulf %qf, %e : tensor<64x64xf32>
    %a = arith.truncf %m : tensor<64x64xf32> to tensor<64x64xbf16>
    %sr = arith.truncf %st : tensor<64x32xf32> to tensor<64x32xbf16>
    %n = tile.dot %a, %sr, %st : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    scf.yield %n : tensor<64x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<64x32xf32>, memref<64x32xf32>
  return
}
