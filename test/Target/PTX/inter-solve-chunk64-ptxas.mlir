// REQUIRES: ptxas
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx --no-register-tiles -o %t.shared.ptx
// RUN: FileCheck %s --check-prefix=SHARED-PTX --input-file %t.shared.ptx
// RUN: %ptxas -arch=sm_90 -v %t.shared.ptx -o %t.shared.cubin 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: kda-translate %kda_src_root/examples/inter_solve.mlir --kda-to-ptx --no-register-tiles --max-registers 168 -o %t.maxnreg.ptx
// RUN: FileCheck %s --check-prefix=MAXNREG-PTX --input-file %t.maxnreg.ptx
// RUN: %ptxas -arch=sm_90 -v %t.maxnreg.ptx -o %t.maxnreg.cubin 2>&1 | FileCheck %s --check-prefix=MAXNREG

// The chunk-64 inter_solve kernel (dynamic batch, static heads) runs on
// registers by default, under its tuning's cap of 168 registers per
// thread: with its global addresses as a program base plus per-access
// offsets (gpu-hoist-uniform-addresses) ptxas 13.0 needs no spills there
// (before, the batch term of every address cost it 256 bytes of spills).
//
// On the shared-memory mapping (--no-register-tiles) the kernel holds
// about 110 tile temporaries; packing them by live range into one shared
// block keeps it within the 48 KB of static shared memory. Its own limit
// there (max_registers = 128 in its tile.tuning, with 2 warps per program)
// holds it to 128 registers; since its loads are speculated out of the
// sub-chunk branches (speculate_loads), ptxas may spill a few bytes at
// K = 64.
// Under `kda-translate --max-registers 168`, which overrides every
// kernel's own limit, it assembles without spills.

// PTX: .maxnreg 168
// CHECK: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// CHECK: 0 bytes spill stores, 0 bytes spill loads

// SHARED-PTX: .maxnreg 128
// SHARED: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// SHARED: Used {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers, used 1 barriers, {{.*}}bytes smem

// MAXNREG-PTX: .maxnreg 168
// MAXNREG: Compiling entry function 'inter_solve_inter_solve_0' for 'sm_90'
// MAXNREG: 0 bytes spill stores, 0 bytes spill loads
