#!/usr/bin/env bash
# Compiles the bundles that bench/gate_cumsum_vs_fla.py times: the gate
# stage at B=1, HV=96, K=128, with a precomputed fp32 gate and with the
# fused lower-bound gate on bf16.
#   scripts/make-bench-bundles.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
build="${1:-build}"
out="${2:-$build/bench-bundles}"
mkdir -p "$out"
cat > "$out/gate_precomputed.mlir" <<'MLIR'
func.func @gate_precomputed(%g: tensor<1x?x96x128xf32>) -> tensor<1x?x96x128xf32> {
  %G = kda.gate_cumsum %g : (tensor<1x?x96x128xf32>) -> tensor<1x?x96x128xf32>
  return %G : tensor<1x?x96x128xf32>
}
MLIR
cat > "$out/gate_lower_bound.mlir" <<'MLIR'
func.func @gate_lower_bound(%g: tensor<1x?x96x128xbf16>, %a: tensor<96xf32>, %dt: tensor<96x128xf32>) -> tensor<1x?x96x128xf32> {
  %G = kda.gate_cumsum %g a_log %a dt_bias %dt {gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32}
      : (tensor<1x?x96x128xbf16>, tensor<96xf32>, tensor<96x128xf32>) -> tensor<1x?x96x128xf32>
  return %G : tensor<1x?x96x128xf32>
}
MLIR
for name in gate_precomputed gate_lower_bound; do
  "$build/bin/kda-translate" "$out/$name.mlir" --kda-to-bundle -o "$out/$name.kdab"
done
echo "wrote $out/gate_precomputed.kdab and $out/gate_lower_bound.kdab"
