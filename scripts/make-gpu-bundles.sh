#!/usr/bin/env bash
# Compiles the bundles of the GPU test tier and writes the list of kda-run
# cases that scripts/gpu-check.sh runs on a GPU machine.
#
#   scripts/make-gpu-bundles.sh [BUILD_DIR] [OUT_DIR]
#
# The gate stage: HV in {1, 4, 96} x K in {60, 64, 128} x every gate mode,
# fixed length (T in {1, 63, 64, 65, 1000, 8192}, B in {1, 3}) and varlen
# (cu_seqlens 0,1,64,65,300).
set -euo pipefail
build="${1:-build}"
out="${2:-$build/gpu-bundles}"
translate="$build/bin/kda-translate"
mkdir -p "$out/src"
cases="$out/cases.txt"
: > "$cases"

# gate_program NAME HV K MODE VARLEN DTYPE: writes the kda program NAME.mlir.
gate_program() {
  local name=$1 hv=$2 k=$3 mode=$4 varlen=$5 dtype=$6
  local b='?' operands='%g' types="tensor<?x?x${hv}x${k}x${dtype}>" args="%g: tensor<?x?x${hv}x${k}x${dtype}>" attrs=''
  [ "$varlen" = 1 ] && b=1
  types="tensor<${b}x?x${hv}x${k}x${dtype}>"
  args="%g: ${types}"
  case "$mode" in
    softplus)
      args="$args, %a: tensor<${hv}xf32>, %dt: tensor<${hv}x${k}xf32>"
      operands="$operands a_log %a dt_bias %dt"
      types="$types, tensor<${hv}xf32>, tensor<${hv}x${k}xf32>"
      attrs='gate_mode = #kda<gate_mode softplus>' ;;
    lower_bound)
      args="$args, %a: tensor<${hv}xf32>, %dt: tensor<${hv}x${k}xf32>"
      operands="$operands a_log %a dt_bias %dt"
      types="$types, tensor<${hv}xf32>, tensor<${hv}x${k}xf32>"
      attrs='gate_mode = #kda<gate_mode lower_bound>, lower_bound = -5.0 : f32' ;;
  esac
  if [ "$varlen" = 1 ]; then
    args="$args, %cu: tensor<?xi64>"
    operands="$operands cu_seqlens %cu"
    types="$types, tensor<?xi64>"
  fi
  local result="tensor<${b}x?x${hv}x${k}xf32>"
  cat > "$out/src/$name.mlir" <<MLIR
func.func @$name($args) -> $result {
  %G = kda.gate_cumsum $operands {$attrs} : ($types) -> $result
  return %G : $result
}
MLIR
}

count=0
for hv in 1 4 96; do
  for k in 60 64 128; do
    for mode in precomputed softplus lower_bound; do
      dtype=f32
      [ "$mode" != precomputed ] && dtype=bf16
      name="gate_${mode}_hv${hv}_k${k}"
      gate_program "$name" "$hv" "$k" "$mode" 0 "$dtype"
      "$translate" "$out/src/$name.mlir" --kda-to-bundle -o "$out/$name.kdab"
      for t in 1 63 64 65 1000 8192; do
        for b in 1 3; do
          check=""
          [ $((b * t * hv)) -gt 100000 ] && check="--check-heads 16"
          echo "$name.kdab --batch $b --seq-len $t --heads 1 --value-heads $hv $check" >> "$cases"
        done
      done
      name="gate_${mode}_hv${hv}_k${k}_varlen"
      gate_program "$name" "$hv" "$k" "$mode" 1 "$dtype"
      "$translate" "$out/src/$name.mlir" --kda-to-bundle -o "$out/$name.kdab"
      echo "$name.kdab --batch 1 --seq-len 300 --heads 1 --value-heads $hv --cu-seqlens 0,1,64,65,300" >> "$cases"
      count=$((count + 2))
    done
  done
done
echo "wrote $count bundles and $(wc -l < "$cases") cases to $out"
