// RUN: split-file %s %t
// RUN: chmod +x %t/failing/ptxas %t/chatty/ptxas %t/old/ptxas
// RUN: env PATH=%t/failing kda-translate %t/gate.mlir --kda-to-bundle --no-cpu -o %t/failing.kdab 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: env PATH=%t/chatty kda-translate %t/gate.mlir --kda-to-bundle --no-cpu -o %t/chatty.kdab 2>&1 | FileCheck %s --check-prefix=CHATTY
// RUN: grep -a -c -E '^section cubin [0-9]+$' %t/chatty.kdab | FileCheck %s --check-prefix=CUBIN
// RUN: env PATH=%t/old kda-translate %t/gate.mlir --kda-to-bundle --no-cpu -o %t/old.kdab 2>&1 | FileCheck %s --allow-empty --check-prefix=OLD
// RUN: grep -a -c -E '^section cubin [0-9]+$' %t/old.kdab | FileCheck %s --check-prefix=CUBIN

// kda-translate runs ptxas (the first on PATH; here stand-ins) with its
// output captured: when ptxas fails, the warning carries ptxas's messages
// and the bundle has no cubin; when it succeeds, its "info" lines are
// dropped and anything else it printed is reported as a warning.

// FAIL: warning: ptxas failed ({{.*}}exited with status 1); the bundle has no cubin section
// FAIL-NEXT: ptxas fatal : Unresolved extern function 'missing'

// CHATTY-NOT: info
// CHATTY: warning: ptxas reported:
// CHATTY-NEXT: ptxas warning : Registers are spilled to local memory
// CHATTY-NOT: info

// CUBIN: 1

// A ptxas that does not know -split-compile (which assembles the kernels
// on every core) is run again without it, and nothing is reported.
// OLD-NOT: warning

//--- gate.mlir
func.func @gate(%g: tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32> {
  %G = kda.gate_cumsum %g : (tensor<?x?x4x64xf32>) -> tensor<?x?x4x64xf32>
  return %G : tensor<?x?x4x64xf32>
}

//--- failing/ptxas
#!/bin/sh
echo "ptxas info    : 0 bytes gmem" >&2
echo "ptxas fatal : Unresolved extern function 'missing'" >&2
exit 1

//--- chatty/ptxas
#!/bin/sh
out=
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; fi
  shift
done
echo "ptxas info    : Compiling entry function 'gate' for 'sm_90'"
echo "ptxas warning : Registers are spilled to local memory"
echo "ptxas info    : Used 32 registers"
echo "cubin" > "$out"
exit 0

//--- old/ptxas
#!/bin/sh
out=
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2 ;;
    -split-compile) echo "ptxas fatal   : Unknown option '-split-compile'" >&2; exit 1 ;;
  esac
  shift
done
echo "cubin" > "$out"
exit 0
