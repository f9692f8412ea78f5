// The gate stage on the CPU path against the float64 reference, fixed
// length: T = 1, 63, 64, 65 and 200 (tails), B = 1 and 3, and gates down to
// -1000. Every run must end with PASS (kda-cpu-run exits non-zero on FAIL).

// RUN: kda-cpu-run %s --batch 1 --seq-len 1 | FileCheck %s
// RUN: kda-cpu-run %s --batch 3 --seq-len 63 | FileCheck %s
// RUN: kda-cpu-run %s --batch 1 --seq-len 64 | FileCheck %s
// RUN: kda-cpu-run %s --batch 3 --seq-len 65 --seed 7 | FileCheck %s
// RUN: kda-cpu-run %s --batch 2 --seq-len 200 --mask-p 0.5 | FileCheck %s
// RUN: kda-cpu-run %s --batch 1 --seq-len 129 --gate-norm 0.1 | FileCheck %s

// CHECK: G {{.*}} 0
// CHECK-NOT: FAIL
// CHECK: PASS

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// The checker catches a wrong element.
// RUN: not kda-cpu-run %s --batch 1 --seq-len 65 --inject-error | FileCheck %s --check-prefix=WRONG
// WRONG: FAIL worst rms_ratio=
