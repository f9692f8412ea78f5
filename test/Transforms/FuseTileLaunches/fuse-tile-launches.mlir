// RUN: kda-opt %s --split-input-file --kda-fuse-tile-launches | FileCheck %s

// Three launches of one partition over one grid, with only an allocation
// and index arithmetic between them, become one launch: each buffer is
// passed once (%x, read by all three, and %y, written by the first and read
// by the second), the bodies run in launch order, the tuning is merged
// (most threads, no register cap since @second has none, the smaller
// live-tile bound, speculation only where all ask for it), and the three
// kernels are erased.
// CHECK-LABEL: func.func @host
// CHECK: %[[Z:.*]] = memref.alloc
// CHECK-NOT: tile.launch
// CHECK: tile.launch @first_second_third grid [%arg3, %c1, %c1] args(%arg0, %arg1, %[[Z]], %arg2 : {{.*}}) {tile.partition = "chunks64"}
// CHECK-NOT: tile.launch
// CHECK: return
// CHECK-NOT: func.func @first(
// CHECK-LABEL: func.func @first_second_third
// CHECK-SAME: (%[[X:.*]]: memref<?x16xf32>, %[[Y:.*]]: memref<?x16xf32>, %[[ZA:.*]]: memref<?x16xf32>, %[[W:.*]]: memref<?x16xf32>)
// CHECK-SAME: tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 1024>
// CHECK: %[[P:.*]] = tile.program_id x
// CHECK: %[[A:.*]] = tile.load %[[X]]
// CHECK: tile.store %{{.*}}, %[[Y]]
// CHECK: tile.load %[[Y]]
// CHECK: tile.store %{{.*}}, %[[ZA]]
// CHECK: tile.load %[[ZA]]
// CHECK: tile.store %{{.*}}, %[[W]]
// CHECK-NEXT: return
// CHECK-NOT: func.func @second(
// CHECK-NOT: func.func @third(
func.func @host(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %w: memref<?x16xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @first grid [%n, %c1, %c1] args(%x, %y : memref<?x16xf32>, memref<?x16xf32>) {tile.partition = "chunks64"}
  %rows = memref.dim %x, %c1 : memref<?x16xf32>
  %z = memref.alloc(%rows) : memref<?x16xf32>
  tile.launch @second grid [%n, %c1, %c1] args(%x, %y, %z : memref<?x16xf32>, memref<?x16xf32>, memref<?x16xf32>) {tile.partition = "chunks64"}
  tile.launch @third grid [%n, %c1, %c1] args(%z, %w, %x : memref<?x16xf32>, memref<?x16xf32>, memref<?x16xf32>) {tile.partition = "chunks64"}
  return
}
func.func @first(%in: memref<?x16xf32>, %out: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 96, speculate_loads = true>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p = tile.program_id x
  %row = arith.muli %p, %c16 : index
  %a = tile.load %in[%row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  tile.store %a, %out[%row, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}
func.func @second(%in: memref<?x16xf32>, %mid: memref<?x16xf32>, %out: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, max_live_bytes = 4096, speculate_loads = true>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p = tile.program_id x
  %row = arith.muli %p, %c16 : index
  %a = tile.load %mid[%row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  %b = arith.addf %a, %a : tensor<16x16xf32>
  tile.store %b, %out[%row, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}
func.func @third(%in: memref<?x16xf32>, %out: memref<?x16xf32>, %unused: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32, max_registers = 128, max_live_bytes = 1024>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p = tile.program_id x
  %row = arith.muli %p, %c16 : index
  %a = tile.load %in[%row, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  tile.store %a, %out[%row, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}

// -----

// Launches that differ in partition, grid or an op between them that
// touches memory stay apart; so do launches without a partition, and
// kernels whose tiles have layouts.
// CHECK-LABEL: func.func @apart
// CHECK: tile.launch @k1 grid
// CHECK: tile.launch @k2 grid
// CHECK: tile.launch @k3 grid
// CHECK: memref.store
// CHECK: tile.launch @k4 grid
// CHECK: tile.launch @k5 grid
// CHECK: tile.launch @k6 grid
// CHECK: tile.launch @laid_out grid
// CHECK: tile.launch @k7 grid
func.func @apart(%x: memref<?x16xf32>, %n: index, %m: index, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.launch @k1 grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks64"}
  tile.launch @k2 grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  tile.launch @k3 grid [%m, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  memref.store %s, %x[%c0, %c0] : memref<?x16xf32>
  tile.launch @k4 grid [%m, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  tile.launch @k5 grid [%m, %c1, %c1] args(%x : memref<?x16xf32>)
  tile.launch @k6 grid [%m, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  tile.launch @laid_out grid [%m, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  tile.launch @k7 grid [%m, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks32"}
  return
}
func.func @k1(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k2(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k3(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k4(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k5(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k6(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @k7(%a: memref<?x16xf32>) attributes {tile.kernel} { return }
#acc = #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>
func.func @laid_out(%a: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %zero = arith.constant 0.0 : f32
  %t = tile.splat %zero : f32 -> tensor<16x8xf32, #acc>
  return
}

// -----

// A kernel that another launch still uses is kept; the fused kernel takes
// a free name when its own is taken. Kernels without a tuning give a fused
// kernel without one.
// CHECK-LABEL: func.func @shared_kernel
// CHECK: tile.launch @[[FUSED:a_b_[0-9]+]] grid
// CHECK: tile.launch @a grid
// CHECK-DAG: func.func @a(
// CHECK-DAG: func.func @a_b(
// CHECK-DAG: func.func @[[FUSED]]({{.*}}) attributes {tile.kernel} {
func.func @shared_kernel(%x: memref<?x16xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @a grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "p"}
  tile.launch @b grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "p"}
  %c2 = arith.constant 2 : index
  tile.launch @a grid [%c2, %c1, %c1] args(%x : memref<?x16xf32>)
  return
}
func.func @a(%p: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @b(%p: memref<?x16xf32>) attributes {tile.kernel} { return }
func.func @a_b(%p: memref<?x16xf32>) { return }

// -----

// The fused kernel asks for registers only when every kernel it is made of
// does (@regs_a and @regs_b: registers; with @shared_c too: shared memory,
// which lowers any body), with one stage.
// CHECK-LABEL: func.func @mapping_host
// CHECK: tile.launch @regs_a_b grid
// CHECK: tile.launch @regs_a_b_shared_c grid
// CHECK-LABEL: func.func @regs_a_b(
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128, mapping = registers>
// CHECK-LABEL: func.func @regs_a_b_shared_c(
// CHECK-SAME: tile.tuning = #tile.tuning<threads = 128>
func.func @mapping_host(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  tile.launch @regs_a grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks64"}
  tile.launch @regs_b grid [%n, %c1, %c1] args(%x : memref<?x16xf32>) {tile.partition = "chunks64"}
  %z = memref.alloc() : memref<1xf32>
  tile.launch @regs_a grid [%n, %c1, %c1] args(%y : memref<?x16xf32>) {tile.partition = "chunks16"}
  tile.launch @regs_b grid [%n, %c1, %c1] args(%y : memref<?x16xf32>) {tile.partition = "chunks16"}
  tile.launch @shared_c grid [%n, %c1, %c1] args(%y : memref<?x16xf32>) {tile.partition = "chunks16"}
  return
}
func.func @regs_a(%io: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128, mapping = registers, stages = 2>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id x
  %a = tile.load %io[%p, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  tile.store %a, %io[%p, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}
func.func @regs_b(%io: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, mapping = registers>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id x
  %a = tile.load %io[%p, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  %b = arith.addf %a, %a : tensor<16x16xf32>
  tile.store %b, %io[%p, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}
func.func @shared_c(%io: memref<?x16xf32>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %p = tile.program_id x
  %a = tile.load %io[%p, %c0] dims [0, 1] : memref<?x16xf32> -> tensor<16x16xf32>
  tile.store %a, %io[%p, %c0] dims [0, 1] : tensor<16x16xf32>, memref<?x16xf32>
  return
}
