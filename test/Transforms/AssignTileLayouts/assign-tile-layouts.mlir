// RUN: kda-opt %s -split-input-file --kda-assign-tile-layouts | FileCheck %s
// RUN: kda-opt %s -split-input-file --kda-assign-tile-layouts="remarks=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: kda-opt %kda_src_root/examples/register_chain.mlir --kda-drop-tile-layouts | kda-opt --kda-assign-tile-layouts | FileCheck %s --check-prefix=CHAIN
// RUN: kda-opt %s -split-input-file --kda-assign-tile-layouts="duplicate-small-operands=true" | FileCheck %s --check-prefix=DUP
// RUN: kda-opt %s -split-input-file --kda-assign-tile-layouts="scan-layouts=true" | FileCheck %s --check-prefix=SCAN

// The rules of kda-assign-tile-layouts, one kernel each.

// A dot anchors its accumulator and operands (one warp: 16x16 blocks of
// two 16x8 mma.sync), the loads feeding them take the operand layouts, and
// the store takes what it is given.
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @dot_anchors
// CHECK: %[[A:.*]] = tile.load {{.*}} -> tensor<16x16xbf16, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 2], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: %[[B:.*]] = tile.load {{.*}} -> tensor<16x16xbf16, #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>>
// CHECK: %[[Z:.*]] = tile.splat {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: tile.dot %[[A]], %[[B]], %[[Z]]
// CHECK-NOT: tile.convert_layout
func.func @dot_anchors(%x: memref<16x16xbf16>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16>
  %b = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %d = tile.dot %a, %b, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// Four warps on a 64x64 accumulator: all along M (16 rows each); B is held
// by every warp.
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @warps_along_m
// CHECK: tile.dot {{.*}} : tensor<64x32xbf16, #tile.dist<warps = [4, 1], batch = [1, 2], outer = [2, 2]{{.*}}>>, tensor<32x64xbf16, #tile.dist<warps = [1, 1], batch = [2, 8], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 4]>> -> tensor<64x64xf32, #tile.dist<warps = [4, 1], batch = [1, 8], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 4]>>
func.func @warps_along_m(%x: memref<64x32xbf16>, %w: memref<32x64xbf16>, %y: memref<64x64xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<64x32xbf16> -> tensor<64x32xbf16>
  %b = tile.load %w[%c0, %c0] dims [0, 1] : memref<32x64xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<64x64xf32>
  %d = tile.dot %a, %b, %z : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<64x64xf32>, memref<64x64xf32>
  return
}

// -----

// A loop carrying an accumulator: the iter_arg, the yield and the result
// share the accumulator layout.
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} -> (tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1]
// CHECK: tile.dot
// CHECK: scf.yield %{{.*}} : tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 2], outer = [2, 1]
// CHECK-NOT: tile.convert_layout
func.func @loop(%x: memref<64x16xbf16>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %acc = scf.for %k = %c0 to %c64 step %c16 iter_args(%s = %z) -> (tensor<16x16xf32>) {
    %a = tile.load %x[%k, %c0] dims [0, 1] : memref<64x16xbf16> -> tensor<16x16xbf16>
    %n = tile.dot %a, %a, %s : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
    scf.yield %n : tensor<16x16xf32>
  }
  tile.store %acc, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A tile that no dot places (a copy): coalesced, 16 bytes per lane along
// rows, 16 lanes across a row of 64, 2 rows per warp, warps down the rows.
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @copy
// CHECK: tile.load {{.*}} -> tensor<16x64xf32, #tile.dist<warps = [4, 1], batch = [2, 1], outer = [1, 1], lanes = [2, 16], elems = [1, 4], lane_strides = [16, 1], warp_strides = [1, 4]>>
func.func @copy(%x: memref<16x64xf32>, %y: memref<16x64xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> tensor<16x64xf32>
  tile.store %t, %y[%c0, %c0] dims [0, 1] : tensor<16x64xf32>, memref<16x64xf32>
  return
}

// -----

// A recurrence (the state scan's shape): the loop carries S, rd(S) is the
// B operand of w . rd(S), and rd(u - w . rd(S)) the B operand of the dot
// that updates S. The warps go along N (8 columns each), so that each warp
// keeps its own columns of the whole chain: the accumulators and B
// operands split their columns over the 4 warps, the A operands (w and
// kg^T, through its transpose) are held by every warp, and the only
// conversions are the two accumulators that become B operands, each after
// its rounding to bf16 (16-bit, so that it can be a movmatrix).
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @recurrence
// CHECK: scf.for {{.*}} -> (tensor<64x32xf32, #tile.dist<warps = [1, 4], batch = [4, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>)
// CHECK: %[[W:.*]] = tile.load {{.*}} -> tensor<64x64xbf16, #tile.dist<warps = [1, 1], batch = [4, 4], outer = [2, 2]
// CHECK: %[[KG:.*]] = tile.load {{.*}} -> tensor<64x64xbf16, #tile.dist<warps = [1, 1], batch = [4, 4], outer = [2, 2]
// CHECK: %[[SB:.*]] = tile.convert_layout %{{.*}} : tensor<64x32xbf16, #tile.dist<warps = [1, 4], {{.*}}> -> tensor<64x32xbf16, #tile.dist<warps = [1, 4], batch = [4, 1], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>>
// CHECK: tile.dot %[[W]], %[[SB]]
// CHECK: %[[KT:.*]] = tile.trans %[[KG]]
// CHECK: %[[VB:.*]] = tile.convert_layout %{{.*}} : tensor<64x32xbf16, #tile.dist<warps = [1, 4], {{.*}}> -> tensor<64x32xbf16, #tile.dist<warps = [1, 4], batch = [4, 1], outer = [2, 1], lanes = [4, 8], elems = [2, 1], lane_strides = [1, 4], warp_strides = [1, 1]>>
// CHECK: tile.dot %[[KT]], %[[VB]]
// CHECK-NOT: tile.convert_layout
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

// -----

// A recurrence whose A operand is computed (a gated query, rd(q * 2^G)):
// with the warps along N every warp reads all of A, so instead of being
// computed whole in every warp, its chain (the loads of q and G, exp2, the
// product, the rounding) takes the coalesced layout, spread over the four
// warps, and one conversion brings it to the dot's A layout (which
// convert-tile-to-simt keeps in shared memory).
// CHECK-LABEL: func.func @computed_a_operand
// CHECK: tile.load {{.*}} -> tensor<64x64xf32, #tile.dist<warps = [4, 1]
// CHECK: math.exp2 {{.*}} : tensor<64x64xf32, #tile.dist<warps = [4, 1]
// CHECK: %[[A:.*]] = arith.truncf {{.*}} to tensor<64x64xbf16, #tile.dist<warps = [4, 1]
// CHECK: %[[AM:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<64x64xbf16, #tile.dist<warps = [1, 1], batch = [4, 4], outer = [2, 2]
// CHECK: tile.dot %[[AM]]
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

// -----

// A small computed A operand (a [16, 16] bf16 block masked to its lower
// triangle, as the recurrent form's M and Aqk at chunk 16): by default it is
// computed once in the coalesced layout and converted at the dot, like the
// [64, 64] one above; with duplicate-small-operands (its copies in the
// other three warps would add up to 1.5 KiB, under 8 KiB) every warp loads
// and masks it in the dot's A layout itself, with no conversion. The
// [64, 64] operand above (24 KiB of copies) is converted either way.
// CHECK-LABEL: func.func @small_computed_a_operand
// CHECK: %[[A:.*]] = arith.select
// CHECK: tile.convert_layout %[[A]]
// DUP-LABEL: func.func @computed_a_operand
// DUP: tile.convert_layout
// DUP-LABEL: func.func @small_computed_a_operand
// DUP: %[[A:.*]] = arith.select {{.*}} : tensor<16x16xi1, #tile.dist<warps = [1, 1], {{.*}}>>, tensor<16x16xbf16, #tile.dist<warps = [1, 1], {{.*}}>>
// DUP-NOT: tile.convert_layout %[[A]]
// DUP: tile.dot %[[A]],
func.func @small_computed_a_operand(%m: memref<16x16xbf16>, %out: memref<16x32xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %z = tile.splat %zero : f32 -> tensor<16x32xf32>
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%st = %z) -> (tensor<16x32xf32>) {
    %mt = tile.load %m[%c0, %c0] dims [0, 1] : memref<16x16xbf16> -> tensor<16x16xbf16>
    %lower = tile.tri_mask lower diagonal 0 : tensor<16x16xi1>
    %zt = tile.splat %zb : bf16 -> tensor<16x16xbf16>
    %a = arith.select %lower, %mt, %zt : tensor<16x16xi1>, tensor<16x16xbf16>
    %sr = arith.truncf %st : tensor<16x32xf32> to tensor<16x32xbf16>
    %n = tile.dot %a, %sr, %st : tensor<16x16xbf16>, tensor<16x32xbf16> -> tensor<16x32xf32>
    scf.yield %n : tensor<16x32xf32>
  }
  tile.store %s, %out[%c0, %c0] dims [0, 1] : tensor<16x32xf32>, memref<16x32xf32>
  return
}

// -----

// A forward scan keeps its input's layout (here the coalesced one of the
// load: nothing else anchors the kernel).
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @scan
// CHECK: %[[T:.*]] = tile.load %{{.*}} -> tensor<16x16xf32, #[[L:.*]]>
// CHECK: tile.scan add %[[T]] dim 0 : tensor<16x16xf32, #[[L]]>
func.func @scan(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %s = tile.scan add %t dim 0 : tensor<16x16xf32>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// By default, the coalesced layout of a load puts a scan's rows across the
// warps (the scan then exchanges column totals through shared memory).
// With scan-layouts, the scan anchors a layout with the warps along the
// columns (16 bytes per lane, 32 columns per warp: 8 lanes along them,
// 4 along the rows, 4 rows per thread), which the load and the product
// before it take by spreading backward, and the store after it forward.
// CHECK-LABEL: func.func @scan_rows
// CHECK: tile.scan add %{{.*}} dim 0 : tensor<16x128xf32, #tile.dist<warps = [4, 1],
// SCAN-LABEL: func.func @scan_rows
// SCAN: %[[T:.*]] = tile.load %{{.*}} -> tensor<16x128xf32, #tile.dist<[[L:warps = \[1, 4\], batch = \[4, 1\], outer = \[1, 1\], lanes = \[4, 8\], elems = \[1, 4\], lane_strides = \[8, 1\], warp_strides = \[4, 1\]]]>>
// SCAN-NEXT: %[[P:.*]] = arith.mulf %[[T]], %[[T]] : tensor<16x128xf32, #tile.dist<[[L]]>>
// SCAN-NEXT: %[[S:.*]] = tile.scan add %[[P]] dim 0 : tensor<16x128xf32, #tile.dist<[[L]]>>
// SCAN-NEXT: tile.store %[[S]]
func.func @scan_rows(%x: memref<16x128xf32>, %y: memref<16x128xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x128xf32> -> tensor<16x128xf32>
  %p = arith.mulf %t, %t : tensor<16x128xf32>
  %s = tile.scan add %p dim 0 : tensor<16x128xf32>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<16x128xf32>, memref<16x128xf32>
  return
}

// -----

// Kernels that cannot run on registers keep their tiles as they are: a
// scan of 16-bit elements (warp shuffles move 32 bits).
// REMARK: remark: @{{.*}} stays on the shared-memory mapping: it has a tile.scan of other than 32-bit elements
// CHECK-LABEL: func.func @scan_f16
// CHECK: tile.scan add %{{.*}} dim 0 : tensor<16x16xf16>{{$}}
func.func @scan_f16(%x: memref<16x16xf16>, %y: memref<16x16xf16>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf16> -> tensor<16x16xf16>
  %s = tile.scan add %t dim 0 : tensor<16x16xf16>
  tile.store %s, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf16>, memref<16x16xf16>
  return
}

// -----

// f32 operands at ieee precision have no mma.sync.
// REMARK: remark: @{{.*}} stays on the shared-memory mapping: it has a dot that is not a 16-bit or tf32 mma.sync shape
func.func @dot_f32_ieee(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %d = tile.dot %t, %t, %t : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// f32 operands at tf32 precision take the layouts of mma.sync.m16n8k8.tf32:
// A one element per register at (g, t), (g + 8, t), (g, t + 4), (g + 8,
// t + 4) of each 16x8 block, B at (t, g) and (t + 4, g), here with the two
// warps along N (16 columns) and A read whole by both.
// Loaded tf32 operands are K-packed: each lane holds K / 4 consecutive
// elements, read as one run.
// CHECK-LABEL: func.func @dot_tf32
// CHECK: %[[A:.+]] = tile.load {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: %[[B:.+]] = tile.load {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [1, 2], batch = [1, 1], outer = [1, 1], lanes = [4, 8], elems = [4, 1], lane_strides = [1, 4], warp_strides = [1, 1]>>
// CHECK: tile.dot %[[A]], %[[B]], %{{.*}} precision = tf32 : {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [1, 2], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 2], lane_strides = [4, 1], warp_strides = [1, 1]>>
func.func @dot_tf32(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %b = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32>
  %d = tile.dot %a, %b, %zero precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %z[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// tile.unit_lower_inverse asks nothing of its operands' layouts: the loaded
// input keeps the coalesced layout, and the inverse takes the layout of the
// dot that reads it (the K-packed tf32 A operand); its init, a splat, is made again
// in that layout.
// CHECK-LABEL: func.func @inverse
// CHECK: %[[L:.+]] = tile.load {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [2, 1], outer = [1, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: %[[Z:.+]] = tile.splat %{{.*}} : f32 -> tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: %[[I:.+]] = tile.unit_lower_inverse ins(%[[L]] : {{.*}}) outs(%[[Z]] : {{.*}}) -> tensor<16x16xf32, #tile.dist<warps = [1, 1], batch = [1, 1], outer = [2, 1], lanes = [8, 4], elems = [1, 4], lane_strides = [4, 1], warp_strides = [1, 1]>>
// CHECK: tile.dot %[[I]], %{{.*}}, %{{.*}} precision = tf32
func.func @inverse(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %l = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32>
  %i = tile.unit_lower_inverse ins(%l : tensor<16x16xf32>) outs(%zero : tensor<16x16xf32>) -> tensor<16x16xf32>
  %b = tile.load %y[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %d = tile.dot %i, %b, %zero precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A small loaded tile that two dots read in different layouts (A of one,
// B of the other) is loaded again in the second layout, not converted.
// CHECK-LABEL: func.func @reload
// CHECK-COUNT-2: tile.load %arg0
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @reload(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %l = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32>
  %d = tile.dot %l, %l, %zero precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// A store between the load and the use that needs another layout: the
// memory may have changed, so the tile is converted, not loaded again.
// CHECK-LABEL: func.func @no_reload_after_store
// CHECK: tile.load %arg0
// CHECK-NOT: tile.load
// CHECK: tile.store
// CHECK-NOT: tile.load
// CHECK: tile.convert_layout
func.func @no_reload_after_store(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %l = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  %zero = tile.splat %cst : f32 -> tensor<16x16xf32>
  tile.store %zero, %x[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  %d = tile.dot %l, %zero, %zero precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %e = tile.dot %zero, %l, %d precision = tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %e, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// REMARK: remark: @{{.*}} stays on the shared-memory mapping: it has a tile of shape other than 1-D or 2-D powers of 2
func.func @odd_shape(%x: memref<16x60xf32>, %y: memref<16x60xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 32>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x60xf32> -> tensor<16x60xf32>
  tile.store %t, %y[%c0, %c0] dims [0, 1] : tensor<16x60xf32>, memref<16x60xf32>
  return
}

// -----

// REMARK: remark: @{{.*}} stays on the shared-memory mapping: its threads (48) are not a whole number of warps
func.func @partial_warp(%x: memref<16x16xf32>, %y: memref<16x16xf32>)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 48>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x16xf32> -> tensor<16x16xf32>
  tile.store %t, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}

// The example without its layouts gets them back: the same as written by
// hand, and one conversion (accumulator to A operand, a register rename).
// CHAIN-LABEL: func.func @chain_block
// CHAIN-COUNT-1: tile.convert_layout
// CHAIN-NOT: tile.convert_layout
// CHAIN: return

// -----

// Loads seed the layouts before anything else, and a broadcast's result
// takes its input's layout, the new dimension on the lanes no input
// dimension takes: the row sums of a coalesced [16, 128] tile (rows over
// the 4 warps and 4 register blocks, the 32 lanes along the row) broadcast
// to [16, 16] keep those rows and spread the 16 columns over 16 lanes. A
// loop-carried accumulator that starts as zeros (made in any layout for
// free) takes the layout of what each trip adds, so the loop converts
// nothing; the zeros are made in that layout.
// REMARK: remark: @{{.*}} runs on registers
// CHECK-LABEL: func.func @accumulated_row_sums
// CHECK: %[[Z:.*]] = tile.splat {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [4, 1], batch = [4, 1], outer = [1, 1], lanes = [1, 16], elems = [1, 1], lane_strides = [32, 1], warp_strides = [1, 1]>>
// CHECK-NOT: tile.convert_layout
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]])
// CHECK: tile.reduce add {{.*}} -> tensor<16xf32, #tile.dist<warps = [4], batch = [4], outer = [1], lanes = [1], elems = [1], lane_strides = [32], warp_strides = [1]>>
// CHECK-NEXT: tile.broadcast {{.*}} -> tensor<16x16xf32, #tile.dist<warps = [4, 1], batch = [4, 1], outer = [1, 1], lanes = [1, 16], elems = [1, 1], lane_strides = [32, 1], warp_strides = [1, 1]>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store
func.func @accumulated_row_sums(%x: memref<16x128xf32>, %y: memref<16x16xf32>, %n: index)
    attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 128>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %sums = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<16x16xf32>) {
    %rows = tile.load %x[%c0, %c0] dims [0, 1] : memref<16x128xf32> -> tensor<16x128xf32>
    %s = tile.reduce add %rows dim 1 : tensor<16x128xf32> -> tensor<16xf32>
    %b = tile.broadcast %s dims [1] : tensor<16xf32> -> tensor<16x16xf32>
    %next = arith.addf %acc, %b : tensor<16x16xf32>
    scf.yield %next : tensor<16x16xf32>
  }
  tile.store %sums, %y[%c0, %c0] dims [0, 1] : tensor<16x16xf32>, memref<16x16xf32>
  return
}
