// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx -o %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx --max-registers 168 -o %t.maxnreg.ptx
// RUN: FileCheck %s --check-prefix=MAXNREG-PTX --input-file %t.maxnreg.ptx
// RUN: %ptxas -arch=sm_90 -v %t.maxnreg.ptx -o %t.maxnreg.cubin 2>&1 | FileCheck %s --check-prefix=MAXNREG

// The chunk-64 inter_solve kernel holds about 110 tile temporaries; packing
// them by live range into one shared block (buffers whose lives do not
// overlap share bytes) keeps it within the 48 KB of static shared memory.
// ptxas 13.0 gives it 168 registers and spills 44 bytes (the addresses of
// its cp.async tile loads, computed once per K step, stay live across the
// step); at most 64 bytes are allowed, so growth is caught. With
// `kda-translate --max-registers 168` (the same count, stated as .maxnreg)
// ptxas allocates differently and does not spill.

// CHECK: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// CHECK: {{([0-9]|[1-5][0-9]|6[0-4])}} bytes spill stores
// CHECK: Used {{[0-9]+}} registers, used 1 barriers, {{([0-9]+ bytes cumulative stack size, )?}}{{[0-9]+}} bytes smem

// MAXNREG-PTX: .maxnreg 168
// MAXNREG: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// MAXNREG: 0 bytes spill stores, 0 bytes spill loads
