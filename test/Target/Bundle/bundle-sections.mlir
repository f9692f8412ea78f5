// REQUIRES: ptxas
// RUN: kda-translate %s --kda-to-bundle -o %t.kdab
// RUN: grep -a -c -E '^section (manifest|ptx|cubin|cpu) [0-9]+$' %t.kdab | FileCheck %s --check-prefix=COUNT
// RUN: grep -a -E '^(KDA-BUNDLE 1|end)$' %t.kdab | FileCheck %s --check-prefix=FRAME

// With ptxas and a C compiler driver available, the bundle also carries the
// cubin and the CPU build.

// COUNT: 4
// FRAME: KDA-BUNDLE 1
// FRAME: end

func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}
