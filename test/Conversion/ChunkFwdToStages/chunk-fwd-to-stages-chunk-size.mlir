// RUN: kda-opt %s --convert-chunk-fwd-to-stages=chunk-size=16 | FileCheck %s
// RUN: kda-opt %s --convert-chunk-fwd-to-stages=chunk-size=64 | FileCheck %s --check-prefix=C64
// RUN: not kda-opt %s --convert-chunk-fwd-to-stages=chunk-size=48 2>&1 | FileCheck %s --check-prefix=BAD

// The chunk size as a compile option: a forward written with chunks of 32
// tokens is computed in chunks of 16 (or 64) tokens, every stage takes that
// size, and the key records it.

// CHECK-LABEL: func.func @fwd(
// CHECK-SAME: chunk = "16"
// CHECK: kda.gate_cumsum {{.*}}chunk_size = 16 : i64
// CHECK: kda.intra_diag {{.*}}chunk_size = 16 : i64
// CHECK: kda.inter_solve {{.*}}chunk_size = 16 : i64
// CHECK: kda.wy_recompute {{.*}}chunk_size = 16 : i64
// CHECK: kda.state_scan {{.*}}chunk_size = 16 : i64
// CHECK: kda.output {{.*}}chunk_size = 16 : i64
// CHECK-SAME: -> tensor<2x?x8x128xbf16>

// C64-LABEL: func.func @fwd(
// C64-SAME: chunk = "64"
// C64: kda.gate_cumsum %arg3 :
// C64: kda.intra_diag {{.*}} {scale = 1.250000e-01 : f32}
// C64-NOT: chunk_size

// BAD: error: convert-chunk-fwd-to-stages: chunk-size must be 16, 32 or 64 (or 0 to keep each forward's own), got 48
func.func @fwd(%q: tensor<2x?x4x64xbf16>, %k: tensor<2x?x4x64xbf16>,
               %v: tensor<2x?x8x128xbf16>, %g: tensor<2x?x8x64xf32>,
               %beta: tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16> {
  %o = kda.chunk_fwd %q, %k, %v, %g, %beta {chunk_size = 32 : i64}
      : (tensor<2x?x4x64xbf16>, tensor<2x?x4x64xbf16>, tensor<2x?x8x128xbf16>,
         tensor<2x?x8x64xf32>, tensor<2x?x8xf32>) -> tensor<2x?x8x128xbf16>
  return %o : tensor<2x?x8x128xbf16>
}
