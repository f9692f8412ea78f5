#!/usr/bin/env bash
# Compiles the bundles that bench/gate_cumsum_vs_fla.py and
# bench/inter_solve_vs_fla.py time, at B=1, H=HV=96, K=128: the gate stage
# with a precomputed fp32 gate and with the fused lower-bound gate on bf16,
# and the seed kernel (inter_solve, bf16) with safe_gate off and on; and the
# whole forward (kda.chunk_fwd, bf16, K=V=128) at the shapes of the anchors
# table, with fla's default flags and with FlashKDA's flags, and at B=1
# T=8192 H=96 with K = V = 64 and 256 (both flag sets) and with f32 I/O
# (fla's flags), which bench/chunk_fwd_vs_fla.py times.
#   scripts/make-bench-bundles.sh [BUILD_DIR] [OUT_DIR]
# KDA_TRANSLATE_FLAGS (e.g. --fuse-scan-output) is added to the kda-translate
# calls of the whole-forward bundles.
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

# fwd_program NAME H HV FLAGS VARLEN [D [DTYPE]]: the whole forward at K = V
# = D (default 128) with q, k, v and beta of DTYPE (default bf16) and an fp32
# initial and final state. FLAGS is `default` (precomputed fp32 log
# gate, q/k normalized and beta activated by the caller) or `flashkda` (gate,
# l2norm and beta sigmoid in the kernel, safe_gate, lower_bound -5, state
# layout vk).
fwd_program() {
  local name=$1 h=$2 hv=$3 flags=$4 varlen=$5 d=${6:-128} dt=${7:-bf16}
  local b='?' n='?' gdt=f32 attrs=''
  [ "$varlen" = 1 ] && b=1
  local qk="tensor<${b}x?x${h}x${d}x${dt}>" v="tensor<${b}x?x${hv}x${d}x${dt}>"
  local g="tensor<${b}x?x${hv}x${d}x${gdt}>" beta="tensor<${b}x?x${hv}x${dt}>"
  local state="tensor<${n}x${hv}x${d}x${d}xf32>"
  local args="%q: $qk, %k: $qk, %v: $v" operands="%q, %k, %v, %g, %beta" types="$qk, $qk, $v"
  if [ "$flags" = flashkda ]; then
    g="tensor<${b}x?x${hv}x${d}x${dt}>"
    args="$args, %g: $g, %beta: $beta, %A: tensor<${hv}xf32>, %dt: tensor<${hv}x${d}xf32>"
    operands="$operands a_log %A dt_bias %dt"
    types="$types, $g, $beta, tensor<${hv}xf32>, tensor<${hv}x${d}xf32>"
    attrs='{use_qk_l2norm, use_beta_sigmoid, safe_gate, gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32, state_layout = #kda<state_layout vk>}'
  else
    args="$args, %g: $g, %beta: $beta"
    types="$types, $g, $beta"
  fi
  args="$args, %h0: $state"; operands="$operands initial_state %h0"; types="$types, $state"
  if [ "$varlen" = 1 ]; then
    args="$args, %cu: tensor<?xi64>"; operands="$operands cu_seqlens %cu"; types="$types, tensor<?xi64>"
  fi
  cat > "$out/$name.mlir" <<MLIR
func.func @$name($args) -> ($v, $state) {
  %o, %ht = kda.chunk_fwd $operands $attrs : ($types) -> ($v, $state)
  return %o, %ht : $v, $state
}
MLIR
  "$build/bin/kda-translate" "$out/$name.mlir" --kda-to-bundle --no-cpu ${KDA_TRANSLATE_FLAGS:-} -o "$out/$name.kdab"
}
for hh in 96,96 64,64 32,32 16,32; do
  h=${hh%,*}; hv=${hh#*,}
  fwd_program "fwd_default_h${h}_hv${hv}" "$h" "$hv" default 0
done
for h in 96 64 32; do
  fwd_program "fwd_flashkda_h${h}" "$h" "$h" flashkda 0
done
fwd_program fwd_flashkda_h96_varlen 96 96 flashkda 1
# Head dimensions and dtypes whose default form is the staged one today.
for d in 64 256; do
  fwd_program "fwd_default_h96_hv96_k$d" 96 96 default 0 "$d"
  fwd_program "fwd_flashkda_h96_k$d" 96 96 flashkda 0 "$d"
done
fwd_program fwd_default_h96_hv96_f32 96 96 default 0 128 f32
echo "wrote the gate, inter_solve and whole-forward bundles to $out"
