// The tile kernel that `kda.inter_solve` lowers to, for examples/inter_solve.mlir
// (chunk 64, H = HV = 4, K = 64, bf16 q/k, merge at tf32): the seed kernel
// (fla's chunk_kda_fwd_kernel_inter_solve_fused) written in the tile DSL.
// It is the output of
//
//   kda-opt examples/inter_solve.mlir --convert-kda-to-tile=mapping=shared-memory \
//       --canonicalize --cse
//
// (the shared-memory tuning: K tiles of 32 columns; by default the target's
// tuning runs this kernel on registers, where the same program has K tiles
// of 16 and mapping = registers)
// with comments and some values renamed after the seed's variables
// (i_t, i_tc0, b_b1, Ai00, ...). kda-opt prints this file exactly as that
// command does (test/Examples/examples.test checks it).
//
// The host function is the launch plan: B * HV * ceil(T / 64) programs.
func.func @inter_solve(%arg0: memref<?x?x4x64xbf16>, %arg1: memref<?x?x4x64xbf16>, %arg2: memref<?x?x4x64xf32>, %arg3: memref<?x?x4xf32>, %arg4: memref<?x?x4x64xbf16>, %arg5: memref<?x?x4x16xf32>, %arg6: memref<?x?x4x64xbf16>, %arg7: memref<?x?x4x64xbf16>) attributes {kda.arg_dims = ["B,T,4,64", "B,T,4,64", "B,T,4,64", "B,T,4", "B,T,4,64", "B,T,4,16", "B,T,4,64", "B,T,4,64"], kda.arg_names = ["q", "k", "G", "beta", "Aqk", "Akkd", "Aqk_out", "M"], kda.entry, kda.key = {H = "4", HV = "4", K = "64", chunk = "64", precision = "tf32", program = "inter_solve", safe_gate = "0", scale = "0.125", varlen = "0"}, kda.num_inputs = 6 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %dim = memref.dim %arg2, %c1 : memref<?x?x4x64xf32>
  %0 = arith.ceildivui %dim, %c64 : index
  %dim_0 = memref.dim %arg2, %c0 : memref<?x?x4x64xf32>
  %1 = arith.muli %dim_0, %c4 : index
  %2 = arith.muli %0, %1 : index
  tile.launch @inter_solve_inter_solve_0 grid [%2, %c1, %c1] args(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7 : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xf32>, memref<?x?x4xf32>, memref<?x?x4x64xbf16>, memref<?x?x4x16xf32>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>)
      {tile.partition = "chunks64"}
  return
}
// tile.tuning: how the kernel runs on the GPU. threads: 2 warps per
// program; max_registers: the register limit per thread that the GPU path
// gives ptxas (128 for the kernel's 2 warps on the shared-memory mapping,
// 168 on registers); block_k: the width of its K tiles; speculate_loads lets
// kda-hoist-tile-loads issue every load of a K step at its start, out of the
// sub-chunk branches. All were measured on an H200:
// lib/Target/Tuning/KernelTuning.cpp has the numbers. hoist_addresses: the
// kernel's global addresses become a program base plus per-access offsets
// (gpu-hoist-uniform-addresses).
func.func @inter_solve_inter_solve_0(%q: memref<?x?x4x64xbf16>, %k: memref<?x?x4x64xbf16>, %g: memref<?x?x4x64xf32>, %beta: memref<?x?x4xf32>, %Aqk: memref<?x?x4x64xbf16>, %Akkd: memref<?x?x4x16xf32>, %Aqk_out: memref<?x?x4x64xbf16>, %M: memref<?x?x4x64xbf16>) attributes {tile.kernel, tile.tuning = #tile.tuning<threads = 64, max_registers = 128, block_k = 32, speculate_loads = true, hoist_addresses = true>} {
  %cst_0 = arith.constant 1.250000e-01 : f32
  %c48 = arith.constant 48 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cst_1 = arith.constant 0.000000e+00 : f32
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %B = memref.dim %g, %c0 : memref<?x?x4x64xf32>
  %BH = arith.muli %B, %c4 : index
  // One program per (chunk, batch * value head), numbered along x with the
  // heads fastest: pid = i_t * (B * HV) + i_bh, so neighbouring programs
  // read the same token rows of every head (the seed's grid is (NT, B *
  // HV)). H = HV here, so the q/k head i_h = i_hv / (HV / H) is i_hv.
  %pid = tile.program_id x
  %i_t = arith.divui %pid, %BH : index
  %i_bh = arith.remui %pid, %BH : index
  %i_b = arith.divui %i_bh, %c4 : index
  %i_hv = arith.remui %i_bh, %c4 : index
  // First row of the chunk; programs past the end of T do nothing.
  %i_tc0 = arith.muli %i_t, %c64 : index
  %T = memref.dim %g, %c1 : memref<?x?x4x64xf32>
  %has_chunk = arith.cmpi slt, %i_tc0, %T : index
  scf.if %has_chunk {
    %zero = tile.splat %cst_1 : f32 -> tensor<16x16xf32>
    // =====================================================================
    // Off-diagonal blocks: twelve f32 accumulators Aqk10, Akk10, Aqk20,
    // Akk20, Aqk21, Akk21, Aqk30, Akk30, Aqk31, Akk31, Aqk32, Akk32, summed
    // over K tiles of BK = 32 columns starting at i_k. Rows past T and
    // columns past K read as 0.
    // =====================================================================
    %acc:12 = scf.for %i_k = %c0 to %c64 step %c32 iter_args(%in_Aqk10 = %zero, %in_Akk10 = %zero, %in_Aqk20 = %zero, %in_Akk20 = %zero, %in_Aqk21 = %zero, %in_Akk21 = %zero, %in_Aqk30 = %zero, %in_Akk30 = %zero, %in_Aqk31 = %zero, %in_Akk31 = %zero, %in_Aqk32 = %zero, %in_Akk32 = %zero) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
      // Sub-chunk 0: k and g (sub-chunk 0 is only ever the J side).
      %b_k0_in = tile.load %k[%i_b, %i_tc0, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
      %b_k0 = arith.extf %b_k0_in : tensor<16x32xbf16> to tensor<16x32xf32>
      %b_g0 = tile.load %g[%i_b, %i_tc0, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
      %tc1 = arith.addi %i_tc0, %c16 : index
      %has1 = arith.cmpi slt, %tc1, %T : index
      // if i_tc1 < T: sub-chunk 1; otherwise the accumulators pass through.
      %r1:12 = scf.if %has1 -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
        %b_q1_in = tile.load %q[%i_b, %tc1, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
        %b_q1 = arith.extf %b_q1_in : tensor<16x32xbf16> to tensor<16x32xf32>
        %b_k1_in = tile.load %k[%i_b, %tc1, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
        %b_k1 = arith.extf %b_k1_in : tensor<16x32xbf16> to tensor<16x32xf32>
        %b_g1 = tile.load %g[%i_b, %tc1, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
        // gn: g at the first row of the sub-chunk (the reference row).
        // (at most the last row: loads are speculated out of the sub-chunk
        // branches, and this one does not bound its row)
        %last1 = arith.subi %T, %c1 : index
        %gn_row1 = arith.minsi %tc1, %last1 : index
        %b_gn1 = tile.load %g[%i_b, %gn_row1, %i_hv, %i_k] bounds [%c64] dims [3] : memref<?x?x4x64xf32> -> tensor<32xf32>
        %gn1 = tile.broadcast %b_gn1 dims [0] : tensor<32xf32> -> tensor<16x32xf32>
        // b_gqn = 2^(g - gn) on rows before T, 0 past T (where g reads as 0
        // and 2^(0 - gn) may overflow).
        %left1 = arith.subi %T, %tc1 : index
        %rows = tile.iota dim 0 : tensor<16x32xi32>
        %left1_i32 = arith.index_cast %left1 : index to i32
        %left1_t = tile.splat %left1_i32 : i32 -> tensor<16x32xi32>
        %m_tc1 = arith.cmpi slt, %rows, %left1_t : tensor<16x32xi32>
        %zero_k = tile.splat %cst_1 : f32 -> tensor<16x32xf32>
        %d1 = arith.subf %b_g1, %gn1 : tensor<16x32xf32>
        %e1 = math.exp2 %d1 : tensor<16x32xf32>
        %b_gqn1 = arith.select %m_tc1, %e1, %zero_k : tensor<16x32xi1>, tensor<16x32xf32>
        %b_qg1 = arith.mulf %b_q1, %b_gqn1 : tensor<16x32xf32>
        %b_kg1 = arith.mulf %b_k1, %b_gqn1 : tensor<16x32xf32>
        // b_kgt = (k_J * 2^(gn - g_J))^T for J = 0, then the dots (tf32).
        %d10 = arith.subf %gn1, %b_g0 : tensor<16x32xf32>
        %e10 = math.exp2 %d10 : tensor<16x32xf32>
        %b_kg10 = arith.mulf %b_k0, %e10 : tensor<16x32xf32>
        %b_kgt10 = tile.trans %b_kg10 : tensor<16x32xf32> -> tensor<32x16xf32>
        %aqk10 = tile.dot %b_qg1, %b_kgt10, %in_Aqk10 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
        %akk10 = tile.dot %b_kg1, %b_kgt10, %in_Akk10 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
        %tc2 = arith.addi %i_tc0, %c32 : index
        %has2 = arith.cmpi slt, %tc2, %T : index
        // if i_tc2 < T: sub-chunk 2.
        %r2:10 = scf.if %has2 -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
          %b_q2_in = tile.load %q[%i_b, %tc2, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
          %b_q2 = arith.extf %b_q2_in : tensor<16x32xbf16> to tensor<16x32xf32>
          %b_k2_in = tile.load %k[%i_b, %tc2, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
          %b_k2 = arith.extf %b_k2_in : tensor<16x32xbf16> to tensor<16x32xf32>
          %b_g2 = tile.load %g[%i_b, %tc2, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
          // gn: g at the first row of the sub-chunk (the reference row).
          %gn_row2 = arith.minsi %tc2, %last1 : index
          %b_gn2 = tile.load %g[%i_b, %gn_row2, %i_hv, %i_k] bounds [%c64] dims [3] : memref<?x?x4x64xf32> -> tensor<32xf32>
          %gn2 = tile.broadcast %b_gn2 dims [0] : tensor<32xf32> -> tensor<16x32xf32>
          // b_gqn = 2^(g - gn) on rows before T, 0 past T (where g reads as 0
          // and 2^(0 - gn) may overflow).
          %left2 = arith.subi %T, %tc2 : index
          %left2_i32 = arith.index_cast %left2 : index to i32
          %left2_t = tile.splat %left2_i32 : i32 -> tensor<16x32xi32>
          %m_tc2 = arith.cmpi slt, %rows, %left2_t : tensor<16x32xi32>
          %d2 = arith.subf %b_g2, %gn2 : tensor<16x32xf32>
          %e2 = math.exp2 %d2 : tensor<16x32xf32>
          %b_gqn2 = arith.select %m_tc2, %e2, %zero_k : tensor<16x32xi1>, tensor<16x32xf32>
          %b_qg2 = arith.mulf %b_q2, %b_gqn2 : tensor<16x32xf32>
          %b_kg2 = arith.mulf %b_k2, %b_gqn2 : tensor<16x32xf32>
          // b_kgt = (k_J * 2^(gn - g_J))^T for J = 0, then the dots (tf32).
          %d20 = arith.subf %gn2, %b_g0 : tensor<16x32xf32>
          %e20 = math.exp2 %d20 : tensor<16x32xf32>
          %b_kg20 = arith.mulf %b_k0, %e20 : tensor<16x32xf32>
          %b_kgt20 = tile.trans %b_kg20 : tensor<16x32xf32> -> tensor<32x16xf32>
          %aqk20 = tile.dot %b_qg2, %b_kgt20, %in_Aqk20 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
          %akk20 = tile.dot %b_kg2, %b_kgt20, %in_Akk20 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
          // J = 1.
          %d21 = arith.subf %gn2, %b_g1 : tensor<16x32xf32>
          %e21 = math.exp2 %d21 : tensor<16x32xf32>
          %b_kg21 = arith.mulf %b_k1, %e21 : tensor<16x32xf32>
          %b_kgt21 = tile.trans %b_kg21 : tensor<16x32xf32> -> tensor<32x16xf32>
          %aqk21 = tile.dot %b_qg2, %b_kgt21, %in_Aqk21 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
          %akk21 = tile.dot %b_kg2, %b_kgt21, %in_Akk21 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
          %tc3 = arith.addi %i_tc0, %c48 : index
          %has3 = arith.cmpi slt, %tc3, %T : index
          // if i_tc3 < T: sub-chunk 3.
          %r3:6 = scf.if %has3 -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
            %b_q3_in = tile.load %q[%i_b, %tc3, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
            %b_q3 = arith.extf %b_q3_in : tensor<16x32xbf16> to tensor<16x32xf32>
            %b_k3_in = tile.load %k[%i_b, %tc3, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x32xbf16>
            %b_k3 = arith.extf %b_k3_in : tensor<16x32xbf16> to tensor<16x32xf32>
            %b_g3 = tile.load %g[%i_b, %tc3, %i_hv, %i_k] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xf32> -> tensor<16x32xf32>
            // gn: g at the first row of the sub-chunk (the reference row).
            %gn_row3 = arith.minsi %tc3, %last1 : index
            %b_gn3 = tile.load %g[%i_b, %gn_row3, %i_hv, %i_k] bounds [%c64] dims [3] : memref<?x?x4x64xf32> -> tensor<32xf32>
            %gn3 = tile.broadcast %b_gn3 dims [0] : tensor<32xf32> -> tensor<16x32xf32>
            // b_gqn = 2^(g - gn) on rows before T, 0 past T (where g reads as 0
            // and 2^(0 - gn) may overflow).
            %left3 = arith.subi %T, %tc3 : index
            %left3_i32 = arith.index_cast %left3 : index to i32
            %left3_t = tile.splat %left3_i32 : i32 -> tensor<16x32xi32>
            %m_tc3 = arith.cmpi slt, %rows, %left3_t : tensor<16x32xi32>
            %d3 = arith.subf %b_g3, %gn3 : tensor<16x32xf32>
            %e3 = math.exp2 %d3 : tensor<16x32xf32>
            %b_gqn3 = arith.select %m_tc3, %e3, %zero_k : tensor<16x32xi1>, tensor<16x32xf32>
            %b_qg3 = arith.mulf %b_q3, %b_gqn3 : tensor<16x32xf32>
            %b_kg3 = arith.mulf %b_k3, %b_gqn3 : tensor<16x32xf32>
            // b_kgt = (k_J * 2^(gn - g_J))^T for J = 0, then the dots (tf32).
            %d30 = arith.subf %gn3, %b_g0 : tensor<16x32xf32>
            %e30 = math.exp2 %d30 : tensor<16x32xf32>
            %b_kg30 = arith.mulf %b_k0, %e30 : tensor<16x32xf32>
            %b_kgt30 = tile.trans %b_kg30 : tensor<16x32xf32> -> tensor<32x16xf32>
            %aqk30 = tile.dot %b_qg3, %b_kgt30, %in_Aqk30 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            %akk30 = tile.dot %b_kg3, %b_kgt30, %in_Akk30 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            // J = 1.
            %d31 = arith.subf %gn3, %b_g1 : tensor<16x32xf32>
            %e31 = math.exp2 %d31 : tensor<16x32xf32>
            %b_kg31 = arith.mulf %b_k1, %e31 : tensor<16x32xf32>
            %b_kgt31 = tile.trans %b_kg31 : tensor<16x32xf32> -> tensor<32x16xf32>
            %aqk31 = tile.dot %b_qg3, %b_kgt31, %in_Aqk31 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            %akk31 = tile.dot %b_kg3, %b_kgt31, %in_Akk31 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            // J = 2.
            %d32 = arith.subf %gn3, %b_g2 : tensor<16x32xf32>
            %e32 = math.exp2 %d32 : tensor<16x32xf32>
            %b_kg32 = arith.mulf %b_k2, %e32 : tensor<16x32xf32>
            %b_kgt32 = tile.trans %b_kg32 : tensor<16x32xf32> -> tensor<32x16xf32>
            %aqk32 = tile.dot %b_qg3, %b_kgt32, %in_Aqk32 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            %akk32 = tile.dot %b_kg3, %b_kgt32, %in_Akk32 precision =  tf32 : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
            scf.yield %aqk30, %akk30, %aqk31, %akk31, %aqk32, %akk32 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
          } else {
            scf.yield %in_Aqk30, %in_Akk30, %in_Aqk31, %in_Akk31, %in_Aqk32, %in_Akk32 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
          }
          scf.yield %aqk20, %akk20, %aqk21, %akk21, %r3#0, %r3#1, %r3#2, %r3#3, %r3#4, %r3#5 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
        } else {
          scf.yield %in_Aqk20, %in_Akk20, %in_Aqk21, %in_Akk21, %in_Aqk30, %in_Akk30, %in_Aqk31, %in_Akk31, %in_Aqk32, %in_Akk32 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
        }
        scf.yield %aqk10, %akk10, %r2#0, %r2#1, %r2#2, %r2#3, %r2#4, %r2#5, %r2#6, %r2#7, %r2#8, %r2#9 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
      } else {
        scf.yield %in_Aqk10, %in_Akk10, %in_Aqk20, %in_Akk20, %in_Aqk21, %in_Akk21, %in_Aqk30, %in_Akk30, %in_Aqk31, %in_Akk31, %in_Aqk32, %in_Akk32 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
      }
      scf.yield %r1#0, %r1#1, %r1#2, %r1#3, %r1#4, %r1#5, %r1#6, %r1#7, %r1#8, %r1#9, %r1#10, %r1#11 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
    }
    // =====================================================================
    // Aqk blocks times scale, Akk blocks times beta (by rows).
    // =====================================================================
    %scale = tile.splat %cst_0 : f32 -> tensor<16x16xf32>
    %i_tc1 = arith.addi %i_tc0, %c16 : index
    %b_b1 = tile.load %beta[%i_b, %i_tc1, %i_hv] bounds [%T] dims [1] : memref<?x?x4xf32> -> tensor<16xf32>
    %beta1 = tile.broadcast %b_b1 dims [1] : tensor<16xf32> -> tensor<16x16xf32>
    %Aqk10 = arith.mulf %acc#0, %scale : tensor<16x16xf32>
    %Akk10 = arith.mulf %acc#1, %beta1 : tensor<16x16xf32>
    %i_tc2 = arith.addi %i_tc0, %c32 : index
    %b_b2 = tile.load %beta[%i_b, %i_tc2, %i_hv] bounds [%T] dims [1] : memref<?x?x4xf32> -> tensor<16xf32>
    %beta2 = tile.broadcast %b_b2 dims [1] : tensor<16xf32> -> tensor<16x16xf32>
    %Aqk20 = arith.mulf %acc#2, %scale : tensor<16x16xf32>
    %Akk20 = arith.mulf %acc#3, %beta2 : tensor<16x16xf32>
    %Aqk21 = arith.mulf %acc#4, %scale : tensor<16x16xf32>
    %Akk21 = arith.mulf %acc#5, %beta2 : tensor<16x16xf32>
    %i_tc3 = arith.addi %i_tc0, %c48 : index
    %b_b3 = tile.load %beta[%i_b, %i_tc3, %i_hv] bounds [%T] dims [1] : memref<?x?x4xf32> -> tensor<16xf32>
    %beta3 = tile.broadcast %b_b3 dims [1] : tensor<16xf32> -> tensor<16x16xf32>
    %Aqk30 = arith.mulf %acc#6, %scale : tensor<16x16xf32>
    %Akk30 = arith.mulf %acc#7, %beta3 : tensor<16x16xf32>
    %Aqk31 = arith.mulf %acc#8, %scale : tensor<16x16xf32>
    %Akk31 = arith.mulf %acc#9, %beta3 : tensor<16x16xf32>
    %Aqk32 = arith.mulf %acc#10, %scale : tensor<16x16xf32>
    %Akk32 = arith.mulf %acc#11, %beta3 : tensor<16x16xf32>
    // =====================================================================
    // Diagonal blocks from Akkd, inverted in one op: Ai_II = (I + L_II)^-1
    // with L_II the strictly lower part of Akk_II (rows past T read as 0
    // and give identity rows). On the GPU each thread walks one column of
    // one block by forward substitution, in registers.
    // =====================================================================
    %Akk00 = tile.load %Akkd[%i_b, %i_tc0, %i_hv, %c0] bounds [%T, %c16] dims [1, 3] : memref<?x?x4x16xf32> -> tensor<16x16xf32>
    %Akk11 = tile.load %Akkd[%i_b, %i_tc1, %i_hv, %c0] bounds [%T, %c16] dims [1, 3] : memref<?x?x4x16xf32> -> tensor<16x16xf32>
    %Akk22 = tile.load %Akkd[%i_b, %i_tc2, %i_hv, %c0] bounds [%T, %c16] dims [1, 3] : memref<?x?x4x16xf32> -> tensor<16x16xf32>
    %Akk33 = tile.load %Akkd[%i_b, %i_tc3, %i_hv, %c0] bounds [%T, %c16] dims [1, 3] : memref<?x?x4x16xf32> -> tensor<16x16xf32>
    %inverses = tensor.empty() : tensor<16x16xf32>
    %Ai00, %Ai11, %Ai22, %Ai33 = tile.unit_lower_inverse ins(%Akk00, %Akk11, %Akk22, %Akk33 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) outs(%inverses, %inverses, %inverses, %inverses : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
    // =====================================================================
    // Merged inverse, the 16x16 dots at the op's precision:
    // Ai10 = -(Ai11 Akk10) Ai00    Ai21 = -(Ai22 Akk21) Ai11
    // Ai32 = -(Ai33 Akk32) Ai22    Ai20 = -Ai22 (Akk20 Ai00 + Akk21 Ai10)
    // Ai31 = -Ai33 (Akk31 Ai11 + Akk32 Ai21)
    // Ai30 = -Ai33 (Akk30 Ai00 + Akk31 Ai10 + Akk32 Ai20)
    // =====================================================================
    %65 = tile.dot %Ai11, %Akk10, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %66 = tile.dot %65, %Ai00, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai10 = arith.negf %66 : tensor<16x16xf32>
    %68 = tile.dot %Ai22, %Akk21, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %69 = tile.dot %68, %Ai11, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai21 = arith.negf %69 : tensor<16x16xf32>
    %71 = tile.dot %Ai33, %Akk32, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %72 = tile.dot %71, %Ai22, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai32 = arith.negf %72 : tensor<16x16xf32>
    %74 = tile.dot %Akk20, %Ai00, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %75 = tile.dot %Akk21, %Ai10, %74 precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %76 = tile.dot %Ai22, %75, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai20 = arith.negf %76 : tensor<16x16xf32>
    %78 = tile.dot %Akk31, %Ai11, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %79 = tile.dot %Akk32, %Ai21, %78 precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %80 = tile.dot %Ai33, %79, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai31 = arith.negf %80 : tensor<16x16xf32>
    %82 = tile.dot %Akk30, %Ai00, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %83 = tile.dot %Akk31, %Ai10, %82 precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %84 = tile.dot %Akk32, %Ai20, %83 precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %85 = tile.dot %Ai33, %84, %zero precision =  tf32 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    %Ai30 = arith.negf %85 : tensor<16x16xf32>
    // =====================================================================
    // Stores, rows before T only, per sub-chunk with rows: Aqk_out gets
    // all 64 columns: the diagonal block of Aqk (copied), the blocks left
    // of it, zeros right of it; M gets all 64 columns: Ai_IJ for J <= I,
    // zeros above.
    // =====================================================================
    %87 = tile.load %Aqk[%i_b, %i_tc0, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x16xbf16>
    tile.store %87, %Aqk_out[%i_b, %i_tc0, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    %zero_bf16 = arith.truncf %zero : tensor<16x16xf32> to tensor<16x16xbf16>
    tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc0, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc0, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc0, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    %88 = arith.truncf %Ai00 : tensor<16x16xf32> to tensor<16x16xbf16>
    tile.store %88, %M[%i_b, %i_tc0, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    tile.store %zero_bf16, %M[%i_b, %i_tc0, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    tile.store %zero_bf16, %M[%i_b, %i_tc0, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    tile.store %zero_bf16, %M[%i_b, %i_tc0, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    // Sub-chunk 1.
    %90 = arith.cmpi slt, %i_tc1, %T : index
    scf.if %90 {
      %93 = tile.load %Aqk[%i_b, %i_tc1, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x16xbf16>
      tile.store %93, %Aqk_out[%i_b, %i_tc1, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %94 = arith.truncf %Aqk10 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %94, %Aqk_out[%i_b, %i_tc1, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc1, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc1, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %95 = arith.truncf %Ai10 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %95, %M[%i_b, %i_tc1, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %96 = arith.truncf %Ai11 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %96, %M[%i_b, %i_tc1, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %M[%i_b, %i_tc1, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %M[%i_b, %i_tc1, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    }
    // Sub-chunk 2.
    %91 = arith.cmpi slt, %i_tc2, %T : index
    scf.if %91 {
      %93 = tile.load %Aqk[%i_b, %i_tc2, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x16xbf16>
      tile.store %93, %Aqk_out[%i_b, %i_tc2, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %94 = arith.truncf %Aqk20 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %94, %Aqk_out[%i_b, %i_tc2, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %95 = arith.truncf %Aqk21 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %95, %Aqk_out[%i_b, %i_tc2, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %Aqk_out[%i_b, %i_tc2, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %96 = arith.truncf %Ai20 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %96, %M[%i_b, %i_tc2, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %97 = arith.truncf %Ai21 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %97, %M[%i_b, %i_tc2, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %98 = arith.truncf %Ai22 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %98, %M[%i_b, %i_tc2, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      tile.store %zero_bf16, %M[%i_b, %i_tc2, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    }
    // Sub-chunk 3.
    %92 = arith.cmpi slt, %i_tc3, %T : index
    scf.if %92 {
      %93 = tile.load %Aqk[%i_b, %i_tc3, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : memref<?x?x4x64xbf16> -> tensor<16x16xbf16>
      tile.store %93, %Aqk_out[%i_b, %i_tc3, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %94 = arith.truncf %Aqk30 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %94, %Aqk_out[%i_b, %i_tc3, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %95 = arith.truncf %Aqk31 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %95, %Aqk_out[%i_b, %i_tc3, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %96 = arith.truncf %Aqk32 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %96, %Aqk_out[%i_b, %i_tc3, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %97 = arith.truncf %Ai30 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %97, %M[%i_b, %i_tc3, %i_hv, %c0] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %98 = arith.truncf %Ai31 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %98, %M[%i_b, %i_tc3, %i_hv, %c16] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %99 = arith.truncf %Ai32 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %99, %M[%i_b, %i_tc3, %i_hv, %c32] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
      %100 = arith.truncf %Ai33 : tensor<16x16xf32> to tensor<16x16xbf16>
      tile.store %100, %M[%i_b, %i_tc3, %i_hv, %c48] bounds [%T, %c64] dims [1, 3] : tensor<16x16xbf16>, memref<?x?x4x64xbf16>
    }
  }
  return
}
