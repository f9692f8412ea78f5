// REQUIRES: ptxas
// RUN: split-file %s %t
// RUN: kda-translate %t/exact.mlir --kda-to-ptx -o %t/exact.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t/exact.ptx
// RUN: %ptxas -arch=sm_90 -v %t/exact.ptx -o %t/exact.cubin 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: kda-translate %t/safe.mlir --kda-to-ptx -o %t/safe.ptx
// RUN: %ptxas -arch=sm_90 -v %t/safe.ptx -o %t/safe.cubin 2>&1 | FileCheck %s --check-prefix=SAFE

// kda.intra_diag at the target shape (H = HV = 96, K = 128, bf16, chunk
// 64), both paths, assembles for sm_90. f32 exp2 becomes ex2.approx.ftz (no
// libdevice needed). ptxas 13.0 spills 16 bytes in each kernel (48 and 56
// registers) by its own choice (no register cap binds): the unrolled
// per-thread loops keep more addresses live. The checks allow at most 32
// bytes, so growth is caught.

// PTX: .visible .entry exact_intra_diag_0(
// PTX: ex2.approx.ftz.f32
// EXACT: Compiling entry function 'exact_intra_diag_0' for 'sm_90'
// EXACT: {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads
// EXACT: Used {{[0-9]+}} registers
// SAFE: Compiling entry function 'safe_intra_diag_0' for 'sm_90'
// SAFE: {{([0-9]|[12][0-9]|3[0-2])}} bytes spill stores, {{([0-9]|[12][0-9]|3[0-2])}} bytes spill loads

//--- exact.mlir
func.func @exact(%q: tensor<?x?x96x128xbf16>, %k: tensor<?x?x96x128xbf16>,
                 %G: tensor<?x?x96x128xf32>, %beta: tensor<?x?x96xf32>)
    -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.0883883461 : f32}
      : (tensor<?x?x96x128xbf16>, tensor<?x?x96x128xbf16>, tensor<?x?x96x128xf32>,
         tensor<?x?x96xf32>)
      -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>
}

//--- safe.mlir
func.func @safe(%q: tensor<?x?x96x128xbf16>, %k: tensor<?x?x96x128xbf16>,
                %G: tensor<?x?x96x128xf32>, %beta: tensor<?x?x96xf32>)
    -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>) {
  %Aqk, %Akkd = kda.intra_diag %q, %k, %G, %beta {scale = 0.0883883461 : f32, safe_gate}
      : (tensor<?x?x96x128xbf16>, tensor<?x?x96x128xbf16>, tensor<?x?x96x128xf32>,
         tensor<?x?x96xf32>)
      -> (tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>)
  return %Aqk, %Akkd : tensor<?x?x96x64xbf16>, tensor<?x?x96x16xf32>
}
