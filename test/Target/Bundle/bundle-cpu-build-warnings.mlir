// RUN: env PATH= kda-translate %s --kda-to-bundle --no-cubin -o %t.kdab 2>&1 | FileCheck %s --implicit-check-not='{{.}}'
// RUN: not grep -a -E '^section cpu [0-9]+$' %t.kdab
// RUN: kda-translate %s --kda-to-bundle --no-cubin -o %t.cpu.kdab
// RUN: grep -a -c -E '^section cpu [0-9]+$' %t.cpu.kdab | FileCheck %s --check-prefix=CPU

// The CPU build runs on a thread of its own beside the GPU build, on a copy
// of the program in a context of its own; what goes wrong there is
// reported as a warning on the program when the bundle is written, and the
// bundle has no cpu section. Here no C compiler driver is on PATH to link
// the CPU build.

// CHECK: {{^}}{{.*}}bundle-cpu-build-warnings.mlir:0:0: warning: no C compiler driver (cc, gcc, clang) to link the CPU build; the bundle has no cpu section{{$}}
// CPU: 1

func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
