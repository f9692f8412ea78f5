// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(gpu-hoist-uniform-addresses{all-kernels=true}))' --split-input-file | FileCheck %s
// RUN: kda-opt %s --pass-pipeline='builtin.module(gpu.module(gpu-hoist-uniform-addresses))' --split-input-file | FileCheck %s --check-prefix=TUNED

// Without all-kernels only the kernels whose tile.tuning (the target's
// tuning) has hoist_addresses = true change (here @integer_address, not
// @two_rows).
// TUNED-LABEL: llvm.func @two_rows
// TUNED-NOT:     i8
// TUNED:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
// TUNED-LABEL: llvm.func @integer_address
// TUNED:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8

// The batch and head terms (block id, a stride argument) of both loads are
// summed once into a byte offset of %p, in the block that dominates both
// loads; each load adds only its thread's row and column and its constant.

// CHECK-LABEL: llvm.func @two_rows
// CHECK:       ^bb1:
// CHECK:         %[[BS:.*]] = llvm.mul %[[B:.*]], %arg1 : i64
// CHECK:         %[[BS2:.*]] = llvm.mul %[[BS]], %{{.*}} : i64
// CHECK:         %[[H2:.*]] = llvm.mul %[[H:.*]], %{{.*}} : i64
// CHECK:         %[[OFF:.*]] = llvm.add %[[BS2]], %[[H2]] : i64
// CHECK:         %[[BASE:.*]] = llvm.getelementptr %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       ^bb2:
// CHECK-NOT:     %arg1
// CHECK:         %[[T:.*]] = llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK:         %[[ROW:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.load %[[ROW]] : !llvm.ptr -> bf16
// CHECK:       ^bb3:
// CHECK:         %[[NEXT:.*]] = llvm.getelementptr %[[BASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.load %[[NEXT]] : !llvm.ptr -> bf16
gpu.module @m {
  llvm.func @two_rows(%p: !llvm.ptr, %s0: i64, %c: i1) attributes {nvvm.kernel} {
    %c96 = llvm.mlir.constant(96 : i64) : i64
    %c128 = llvm.mlir.constant(128 : i64) : i64
    %c12288 = llvm.mlir.constant(12288 : i64) : i64
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    %b = llvm.udiv %pid, %c96 : i64
    %h = llvm.urem %pid, %c96 : i64
    llvm.br ^bb1
  ^bb1:
    llvm.cond_br %c, ^bb2, ^bb3
  ^bb2:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %0 = llvm.mul %b, %s0 : i64
    %1 = llvm.mul %t, %c12288 : i64
    %2 = llvm.add %0, %1 : i64
    %3 = llvm.mul %h, %c128 : i64
    %4 = llvm.add %2, %3 : i64
    %a = llvm.getelementptr %p[%4] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
    %x = llvm.load %a : !llvm.ptr -> bf16
    llvm.return
  ^bb3:
    %tid32b = nvvm.read.ptx.sreg.tid.x : i32
    %tb = llvm.sext %tid32b : i32 to i64
    %c16 = llvm.mlir.constant(16 : i64) : i64
    %r = llvm.add %tb, %c16 : i64
    %5 = llvm.mul %b, %s0 : i64
    %6 = llvm.mul %r, %c12288 : i64
    %7 = llvm.add %5, %6 : i64
    %8 = llvm.mul %h, %c128 : i64
    %9 = llvm.add %7, %8 : i64
    %a2 = llvm.getelementptr %p[%9] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
    %y = llvm.load %a2 : !llvm.ptr -> bf16
    llvm.return
  }
}

// -----

// The register mapping's integer addresses: ptrtoint of the argument plus
// bytes. The head term goes into the base, which the access adds to.

// CHECK-LABEL: llvm.func @integer_address
// CHECK:         %[[H:.*]] = llvm.urem
// CHECK:       ^bb1:
// CHECK:         %[[OFF:.*]] = llvm.mul %[[H]], %{{.*}} : i64
// CHECK:         %[[BASE:.*]] = llvm.getelementptr %arg0[%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[BASEINT:.*]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr to i64
// CHECK:         %[[ADDR:.*]] = llvm.add %[[BASEINT]], %{{.*}} : i64
// CHECK:         llvm.inttoptr %[[ADDR]] : i64 to !llvm.ptr<1>
gpu.module @m {
  llvm.func @integer_address(%p: !llvm.ptr) attributes {nvvm.kernel, tile.tuning = #tile.tuning<threads = 128, hoist_addresses = true>} {
    %c96 = llvm.mlir.constant(96 : i64) : i64
    %c256 = llvm.mlir.constant(256 : i64) : i64
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    %h = llvm.urem %pid, %c96 : i64
    llvm.br ^bb1
  ^bb1:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %base = llvm.ptrtoint %p : !llvm.ptr to i64
    %0 = llvm.mul %h, %c256 : i64
    %1 = llvm.add %0, %t : i64
    %2 = llvm.add %base, %1 : i64
    %q = llvm.inttoptr %2 : i64 to !llvm.ptr<1>
    %x = llvm.load %q : !llvm.ptr<1> -> f32
    llvm.return
  }
}

// -----

// Left as they are: an address with no uniform term besides the pointer, an
// access in the entry block, a uniform term that divides by a value that may
// be zero (not copied where the original was guarded), and functions that
// are not kernels.

// CHECK-LABEL: llvm.func @unchanged
// CHECK-NOT:     i8
// CHECK:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-LABEL: llvm.func @not_a_kernel
// CHECK-NOT:     i8
// CHECK:         llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
gpu.module @m {
  llvm.func @unchanged(%p: !llvm.ptr, %n: i64) attributes {nvvm.kernel} {
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    %e = llvm.getelementptr %p[%pid] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %e : !llvm.ptr -> f32
    llvm.br ^bb1
  ^bb1:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %a = llvm.getelementptr %p[%t] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %y = llvm.load %a : !llvm.ptr -> f32
    %d = llvm.udiv %pid, %n : i64
    %0 = llvm.add %t, %d : i64
    %a2 = llvm.getelementptr %p[%0] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %z = llvm.load %a2 : !llvm.ptr -> f32
    llvm.return
  }
  llvm.func @not_a_kernel(%p: !llvm.ptr, %s0: i64) {
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    llvm.br ^bb1
  ^bb1:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %0 = llvm.mul %pid, %s0 : i64
    %1 = llvm.add %0, %t : i64
    %a = llvm.getelementptr %p[%1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %a : !llvm.ptr -> f32
    llvm.return
  }
}

// -----

// Two copies of one uniform computation in one index (as the memref
// lowering may write it) are one term of twice the scale: the base holds
// it once, and the access adds only the thread's offset.

// CHECK-LABEL: llvm.func @repeated_term
// CHECK:         %[[BASE:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[TID:.*]] = llvm.sext %{{.*}} : i32 to i64
// CHECK:         %[[OFF:.*]] = llvm.mul %[[TID]], %{{.*}} : i64
// CHECK-NEXT:    %[[ADDR:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.load %[[ADDR]] : !llvm.ptr -> f32
gpu.module @m {
  llvm.func @repeated_term(%p: !llvm.ptr, %s0: i64) attributes {nvvm.kernel} {
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    llvm.br ^bb1
  ^bb1:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %0 = llvm.mul %pid, %s0 : i64
    %1 = llvm.mul %pid, %s0 : i64
    %2 = llvm.add %0, %1 : i64
    %3 = llvm.add %2, %t : i64
    %a = llvm.getelementptr %p[%3] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %a : !llvm.ptr -> f32
    llvm.return
  }
}

// -----

// An address computed from another one (here the GEP's index is an integer
// address of the same pointer) stays as it is; the inner one is split.

// CHECK-LABEL: llvm.func @nested_address
// CHECK:       ^bb1:
// CHECK-NEXT:    %[[OUTER:.*]] = llvm.getelementptr %arg0[%[[ROOT:.*]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    llvm.load %[[OUTER]] : !llvm.ptr -> f32
// CHECK:       ^bb2:
// CHECK:         %[[BASE:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NEXT:    %[[BASEINT:.*]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr to i64
// CHECK:         %[[ROOT]] = llvm.add %[[BASEINT]], %{{.*}} : i64
gpu.module @m {
  llvm.func @nested_address(%p: !llvm.ptr, %s: i64) attributes {nvvm.kernel} {
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    llvm.br ^bb2
  ^bb1:
    %outer = llvm.getelementptr %p[%root] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    %x = llvm.load %outer : !llvm.ptr -> f32
    llvm.return
  ^bb2:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %pi = llvm.ptrtoint %p : !llvm.ptr to i64
    %0 = llvm.mul %pid, %s : i64
    %1 = llvm.add %0, %t : i64
    %root = llvm.add %pi, %1 : i64
    llvm.br ^bb1
  }
}

// -----

// Two pointers whose addresses repeat one uniform computation in their own
// blocks each get a base computed from their own copy (the first pointer's
// copy is erased when its accesses are rewritten).

// CHECK-LABEL: llvm.func @two_pointers
// CHECK:       ^bb1:
// CHECK:         %[[M1:.*]] = llvm.mul %{{.*}}, %arg2 : i64
// CHECK:         %[[P:.*]] = llvm.getelementptr %arg0[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:       ^bb2:
// CHECK:         %[[M2:.*]] = llvm.mul %{{.*}}, %arg2 : i64
// CHECK:         %[[Q:.*]] = llvm.getelementptr %arg1[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.getelementptr %[[Q]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
gpu.module @m {
  llvm.func @two_pointers(%p: !llvm.ptr, %q: !llvm.ptr, %s: i64) attributes {nvvm.kernel} {
    %pid32 = nvvm.read.ptx.sreg.ctaid.x : i32
    %pid = llvm.sext %pid32 : i32 to i64
    llvm.br ^bb1
  ^bb1:
    %tid32 = nvvm.read.ptx.sreg.tid.x : i32
    %t = llvm.sext %tid32 : i32 to i64
    %0 = llvm.mul %pid, %s : i64
    %1 = llvm.add %0, %t : i64
    %a = llvm.getelementptr %p[%1] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %x = llvm.load %a : !llvm.ptr -> f32
    llvm.br ^bb2
  ^bb2:
    %2 = llvm.mul %pid, %s : i64
    %3 = llvm.add %2, %t : i64
    %b = llvm.getelementptr %q[%3] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %y = llvm.load %b : !llvm.ptr -> f32
    llvm.return
  }
}
