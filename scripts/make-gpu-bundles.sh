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
# inter_solve_program NAME H HV K CHUNK SAFE PRECISION VARLEN: the seed kernel.
inter_solve_program() {
  local name=$1 h=$2 hv=$3 k=$4 bt=$5 safe=$6 precision=$7 varlen=$8
  local b='?' dt=bf16
  [ "$varlen" = 1 ] && b=1
  local qk="tensor<${b}x?x${h}x${k}x${dt}>" g="tensor<${b}x?x${hv}x${k}xf32>"
  local beta="tensor<${b}x?x${hv}xf32>" a="tensor<${b}x?x${hv}x${bt}x${dt}>"
  local d="tensor<${b}x?x${hv}x16xf32>"
  local attrs="scale = 0.125 : f32, chunk_size = ${bt} : i64, precision = #kda<precision ${precision}>"
  [ "$safe" = 1 ] && attrs="$attrs, safe_gate"
  local args="%q: $qk, %k: $qk, %G: $g, %beta: $beta, %Aqk: $a, %Akkd: $d"
  local operands="%q, %k, %G, %beta, %Aqk, %Akkd"
  local types="$qk, $qk, $g, $beta, $a, $d"
  if [ "$varlen" = 1 ]; then
    args="$args, %cu: tensor<?xi64>"; operands="$operands cu_seqlens %cu"; types="$types, tensor<?xi64>"
  fi
  cat > "$out/src/$name.mlir" <<MLIR
func.func @$name($args) -> ($a, $a) {
  %Aqk_out, %M = kda.inter_solve $operands {$attrs} : ($types) -> ($a, $a)
  return %Aqk_out, %M : $a, $a
}
MLIR
  "$translate" "$out/src/$name.mlir" --kda-to-bundle --no-cpu -o "$out/$name.kdab"
  count=$((count + 1))
}

# The seed kernel: (H, HV) x K x chunk x safe_gate at tf32, fixed length and
# varlen; the other merge precisions on a subset; gates down to -1000 on the
# non-safe path.
for hh in 1,1 4,4 2,8 96,96; do
  h=${hh%,*}; hv=${hh#*,}
  for k in 60 64 100 128; do
    for bt in 32 64; do
      for safe in 0 1; do
        name="inter_solve_h${h}_hv${hv}_k${k}_bt${bt}_safe${safe}"
        inter_solve_program "$name" "$h" "$hv" "$k" "$bt" "$safe" tf32 0
        mask=""
        [ "$safe" = 0 ] && mask="--mask-p 0.1"
        for t in 63 64 65 500 1000 8192; do
          for b in 1 2; do
            check=""
            [ $((b * t * hv)) -gt 100000 ] && check="--check-heads 8"
            echo "$name.kdab --batch $b --seq-len $t --heads $h --value-heads $hv $mask $check" >> "$cases"
          done
        done
        inter_solve_program "${name}_varlen" "$h" "$hv" "$k" "$bt" "$safe" tf32 1
        echo "${name}_varlen.kdab --batch 1 --seq-len 2000 --heads $h --value-heads $hv --cu-seqlens 0,15,100,300,1200,2000 $mask" >> "$cases"
        check=""
        [ "$hv" -gt 8 ] && check="--check-heads 8"
        echo "${name}_varlen.kdab --batch 1 --seq-len 8192 --heads $h --value-heads $hv --cu-seqlens 0,8192 $mask $check" >> "$cases"
      done
    done
  done
done
for precision in ieee tf32x3; do
  for k in 60 128; do
    for bt in 32 64; do
      for safe in 0 1; do
        name="inter_solve_h2_hv8_k${k}_bt${bt}_safe${safe}_${precision}"
        inter_solve_program "$name" 2 8 "$k" "$bt" "$safe" "$precision" 0
        for t in 65 1000; do
          echo "$name.kdab --batch 2 --seq-len $t --heads 2 --value-heads 8" >> "$cases"
        done
      done
    done
  done
done

echo "wrote $count bundles and $(wc -l < "$cases") cases to $out"
