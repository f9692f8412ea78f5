#!/usr/bin/env bash
# `make run`: compile the examples to PTX and run the default problem with
# the CPU build of its bundle (kda-run --cpu) against the float64 reference.
set -euo pipefail
build="${1:-build}"
bin="$build/bin"
cd "$(dirname "$0")/.."

ptxas="$(command -v ptxas || true)"
[ -z "$ptxas" ] && [ -x /usr/local/cuda/bin/ptxas ] && ptxas=/usr/local/cuda/bin/ptxas
out="$build/examples"
mkdir -p "$out"

echo "== Compiling examples/*.mlir to PTX (sm_90)"
for f in examples/*.mlir; do
  name="$(basename "$f" .mlir)"
  "$bin/kda-translate" "$f" --kda-to-ptx -o "$out/$name.ptx"
  entries="$(grep -c '^.visible .entry' "$out/$name.ptx" || true)"
  printf '  %-24s -> %s (%s kernel%s, %s bytes)\n' "$f" "$out/$name.ptx" \
    "$entries" "$([ "$entries" = 1 ] || echo s)" "$(wc -c < "$out/$name.ptx")"
  if [ -n "$ptxas" ]; then
    "$ptxas" -arch=sm_90 -v "$out/$name.ptx" -o "$out/$name.cubin" 2>&1 \
      | grep -E 'Used [0-9]+ registers' | sed 's/^ptxas info *: /    ptxas: /'
  fi
done
[ -z "$ptxas" ] && echo "  (ptxas not found: PTX not assembled)"

echo
echo "== Default problem on the CPU build: examples/gate_cumsum.mlir, B=2, T=1000, HV=4, K=64"
"$bin/kda-translate" examples/gate_cumsum.mlir --kda-to-bundle --no-cubin -o "$out/gate_cumsum.kdab"
"$bin/kda-run" "$out/gate_cumsum.kdab" --cpu --batch 2 --seq-len 1000 --heads 1 --value-heads 4 --mask-p 0.1
echo
echo "== Varlen: cu_seqlens 0,1,64,65,300"
"$bin/kda-translate" examples/gate_cumsum_varlen.mlir --kda-to-bundle --no-cubin -o "$out/gate_cumsum_varlen.kdab"
"$bin/kda-run" "$out/gate_cumsum_varlen.kdab" --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,1,64,65,300
