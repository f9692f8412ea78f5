// kda-run on the CPU build of a bundle: inputs made like fla's tests, every
// output compared with the float64 reference, a table and a last PASS line.
// T = 1, 65 (a tail), 200; B = 1 and 3; --check-heads, --no-check, --bench.

// RUN: kda-translate %s --kda-to-bundle --no-cubin -o %t.kdab
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 1 --heads 1 --value-heads 4 | FileCheck %s --check-prefixes=CHECK,T1
// RUN: kda-run %t.kdab --cpu --batch 3 --seq-len 65 --heads 2 --value-heads 4 --seed 5 --dtype f32 | FileCheck %s --check-prefixes=CHECK,T65
// RUN: kda-run %t.kdab --cpu --batch 2 --seq-len 200 --heads 4 --value-heads 4 --check-heads 3 | FileCheck %s --check-prefix=SOME
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 64 --heads 1 --value-heads 4 --no-check | FileCheck %s --check-prefix=NOCHECK
// RUN: kda-run %t.kdab --cpu --batch 1 --seq-len 64 --heads 1 --value-heads 4 --bench | FileCheck %s --check-prefix=BENCH

// T1: {{^}}kda-run: gate_cumsum (program=gate_cumsum) on the CPU build: B=1 T=1 H=1 HV=4 K=64 chunk=64 gate=precomputed dtype=f32 seed=0{{$}}
// T65: {{^}}kda-run: gate_cumsum (program=gate_cumsum) on the CPU build: B=3 T=65 H=2 HV=4 K=64 chunk=64 gate=precomputed dtype=f32 seed=5{{$}}
// CHECK-NEXT: {{^}}output checked rms_ratio max_abs nonfinite threshold result{{$}}
// T1-NEXT: {{^}}G 256 {{[0-9.e+-]+}} {{[0-9.e+-]+}} 0 1.0e-05 ok{{$}}
// T65-NEXT: {{^}}G 49920 {{[0-9.e+-]+}} {{[0-9.e+-]+}} 0 1.0e-05 ok{{$}}
// CHECK-NEXT: {{^}}PASS worst rms_ratio={{[0-9.e+-]+}} max_abs={{[0-9.e+-]+}}{{$}}

// SOME: {{^}}checking 3 of 8 (sequence, head) pairs{{$}}
// SOME: {{^}}G 38400 
// SOME: {{^}}PASS

// NOCHECK: {{^}}G - - - 0 - ok{{$}}
// NOCHECK-NEXT: {{^}}PASS unchecked (--no-check): every output element written and finite{{$}}

// BENCH: {{^}}bench: median {{[0-9.]+}} ms over {{[0-9]+}} runs (min {{[0-9.]+}} ms, max {{[0-9.]+}} ms); host clock, CPU build, one thread{{$}}
// BENCH-NEXT: {{^}}bench: 131.072 kB moved (all input and output tensors): {{[0-9.]+}} GB/s{{$}}
// BENCH: {{^}}PASS

func.func @gate_cumsum(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
