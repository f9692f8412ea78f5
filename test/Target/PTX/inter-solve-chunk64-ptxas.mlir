// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx --max-registers 168 -o %t.maxnreg.ptx
// RUN: FileCheck %s --check-prefix=MAXNREG-PTX --input-file %t.maxnreg.ptx
// RUN: %ptxas -arch=sm_90 -v %t.maxnreg.ptx -o %t.maxnreg.cubin 2>&1 | FileCheck %s --check-prefix=MAXNREG

// The chunk-64 inter_solve kernel holds about 110 tile temporaries; packing
// them by live range into one shared block (buffers whose lives do not
// overlap share bytes) keeps it within the 48 KB of static shared memory.
// Its own register limit (tile.max_registers = 80, PTX .maxnreg 80: 6
// blocks per SM) costs ptxas 13.0 a few spilled bytes (72 stored, 124
// loaded; the check allows up to 255, so growth is caught). Under
// `kda-translate --max-registers 168`, which overrides every kernel's own
// limit, it assembles without spills.

// PTX: .maxnreg 80
// CHECK: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// CHECK: bytes stack frame, {{([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} bytes spill stores, {{([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} bytes spill loads
// CHECK: Used {{([0-9]|[1-7][0-9]|80)}} registers, used 1 barriers, {{([0-9]+ bytes cumulative stack size, )?}}{{[0-9]+}} bytes smem

// MAXNREG-PTX: .maxnreg 168
// MAXNREG: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// MAXNREG: 0 bytes spill stores, 0 bytes spill loads
