#!/usr/bin/env bash
# Compiles the bundles that bench/gate_cumsum_vs_fla.py and
# bench/inter_solve_vs_fla.py time, at B=1, H=HV=96, K=128: the gate stage
# with a precomputed fp32 gate and with the fused lower-bound gate on bf16,
# and the seed kernel (inter_solve, bf16) with safe_gate off and on.
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
for safe in 0 1; do
  name=inter_solve; attrs='scale = 0.0883883461 : f32, precision = #kda<precision tf32>'
  if [ "$safe" = 1 ]; then name=inter_solve_safe; attrs="$attrs, safe_gate"; fi
  cat > "$out/$name.mlir" <<MLIR
func.func @$name(%q: tensor<1x?x96x128xbf16>, %k: tensor<1x?x96x128xbf16>,
                 %G: tensor<1x?x96x128xf32>, %beta: tensor<1x?x96xf32>,
                 %Aqk: tensor<1x?x96x64xbf16>, %Akkd: tensor<1x?x96x16xf32>)
    -> (tensor<1x?x96x64xbf16>, tensor<1x?x96x64xbf16>) {
  %Aqk_out, %M = kda.inter_solve %q, %k, %G, %beta, %Aqk, %Akkd {$attrs}
      : (tensor<1x?x96x128xbf16>, tensor<1x?x96x128xbf16>, tensor<1x?x96x128xf32>,
         tensor<1x?x96xf32>, tensor<1x?x96x64xbf16>, tensor<1x?x96x16xf32>)
      -> (tensor<1x?x96x64xbf16>, tensor<1x?x96x64xbf16>)
  return %Aqk_out, %M : tensor<1x?x96x64xbf16>, tensor<1x?x96x64xbf16>
}
MLIR
done
for name in gate_precomputed gate_lower_bound inter_solve inter_solve_safe; do
  "$build/bin/kda-translate" "$out/$name.mlir" --kda-to-bundle -o "$out/$name.kdab"
done
echo "wrote the gate and inter_solve bundles to $out"
