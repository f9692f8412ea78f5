// REQUIRES: ptxas
// RUN: kda-translate %s --kda-to-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s

// kda.wy_recompute at the target shape (H = HV = 96, K = V = 128, bf16,
// chunk 64) assembles for sm_90 under its own register limit
// (max_registers = 128 in its tile.tuning, PTX .maxnreg 128: 4 blocks per
// SM), at the cost of a few spilled bytes (20; the check allows up to 255,
// so growth is caught). Its tile temporaries (the [64, 64] f32 block of M
// and the K/V tiles) take about 45 KB of static shared memory.

// PTX: .maxnreg 128
// CHECK: Compiling entry function 'wy_recompute_wy_recompute_0' for 'sm_90'
// CHECK: bytes stack frame, {{([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} bytes spill stores, {{([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])}} bytes spill loads
// CHECK: Used {{([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8])}} registers

func.func @wy_recompute(%k: tensor<1x?x96x128xbf16>, %v: tensor<1x?x96x128xbf16>,
                        %G: tensor<1x?x96x128xf32>, %beta: tensor<1x?x96xf32>,
                        %M: tensor<1x?x96x64xbf16>)
    -> (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>) {
  %w, %u, %kg = kda.wy_recompute %k, %v, %G, %beta, %M
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>,
         tensor<1x?x96xf32>, tensor<1x?x96x64xbf16>)
      -> (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>)
  return %w, %u, %kg : tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>
}
