// The gate stage on the CPU build against the float64 reference, fixed
// length: T = 1, 63, 64, 65 and 200 (tails), B = 1 and 3, and gates down to
// -1000. Every run must end with PASS (kda-run exits non-zero on FAIL).

// RUN: kda-translate %s --kda-to-bundle --no-cubin -o %t.kdab
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 4 | FileCheck %s
// RUN: kda-run %t.kdab --cpu --batch 3 --seq-len 63 --heads 2 --value-heads 4 | FileCheck %s
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 64 --heads 4 --value-heads 4 | FileCheck %s
// RUN: kda-run %t.kdab --cpu --batch 3 --seq-len 65 --heads 1 --value-heads 4 --seed 7 | FileCheck %s
// RUN: kda-run %t.kdab --cpu --batch 2 --seq-len 200 --heads 1 --value-heads 4 --mask-p 0.5 | FileCheck %s --check-prefixes=CHECK,MASK
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 129 --heads 1 --value-heads 4 --gate-norm 0.1 | FileCheck %s --check-prefixes=CHECK,NORM

// MASK: {{^}}kda-run: {{.*}} mask_p=0.5 seed=0{{$}}
// NORM: {{^}}kda-run: {{.*}} gate_norm=0.1 seed=0{{$}}
// CHECK: {{^}}G {{.*}} 0 1.0e-05 ok{{$}}
// CHECK-NOT: FAIL
// CHECK: PASS

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

// The checker catches a wrong element.
// RUN: not kda-run %t.kdab --cpu --batch 1 --seq-len 65 --heads 1 --value-heads 4 --inject-error | FileCheck %s --check-prefix=WRONG
// RUN: not kda-run %t.kdab --cpu --batch 2 --seq-len 65 --heads 1 --value-heads 4 --check-heads 3 --inject-error | FileCheck %s --check-prefix=WRONG
// WRONG: {{^}}G {{.*}} FAIL{{$}}
// WRONG: FAIL worst rms_ratio=
