#!/usr/bin/env bash
# `make run`: compile the examples to PTX, then run the default program,
# the whole forward of examples/chunk_kda_fwd.mlir (B=1, H=HV=96, K=V=128,
# bf16), against the float64 per-token recurrence: at T=8192 on the GPU when
# one is present (with its time), else on the CPU build at T=128.
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
"$bin/kda-translate" examples/chunk_kda_fwd.mlir --kda-to-bundle -o "$out/chunk_kda_fwd.kdab"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== Default forward on the GPU: examples/chunk_kda_fwd.mlir, B=1, T=8192, H=HV=96, K=V=128"
  "$bin/kda-run" "$out/chunk_kda_fwd.kdab" --batch 1 --seq-len 8192 --heads 96 --value-heads 96 --check-heads 8 --bench
else
  echo "== No GPU: the default forward on the CPU build, examples/chunk_kda_fwd.mlir, B=1, T=128, H=HV=96, K=V=128"
  "$bin/kda-run" "$out/chunk_kda_fwd.kdab" --cpu --batch 1 --seq-len 128 --heads 96 --value-heads 96 --check-heads 8
fi
echo
echo "== Varlen gate stage on the CPU build: cu_seqlens 0,1,64,65,300"
"$bin/kda-translate" examples/gate_cumsum_varlen.mlir --kda-to-bundle --no-cubin -o "$out/gate_cumsum_varlen.kdab"
"$bin/kda-run" "$out/gate_cumsum_varlen.kdab" --cpu --batch 1 --seq-len 300 --heads 4 --value-heads 4 --cu-seqlens 0,1,64,65,300
