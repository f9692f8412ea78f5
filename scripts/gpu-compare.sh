#!/usr/bin/env bash
# Times one bundle across several bundle directories on a GPU machine (for
# instance main's build/bench-bundles beside a candidate's), with the
# runtime that scripts/gpu-check.sh builds into build-gpu/:
#
#   scripts/gpu-compare.sh NAME DIR... [-- kda-run shape flags]
#   scripts/gpu-compare.sh fwd_default_h96_hv96 main-bundles cand-bundles \
#       -- --batch 1 --seq-len 8192 --heads 96 --value-heads 96
#
# For each DIR: `kda-run DIR/NAME.kdab FLAGS --bench --check-heads 4` (the
# median of CUDA-event timings; the float64 check on 4 heads keeps the CPU
# reference short), then each kernel's duration from Nsight Compute when
# `ncu` is on the PATH.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/gpu-compare.sh NAME DIR... [-- kda-run flags]" >&2
  exit 2
fi
name="$1"
shift
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  dirs+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
flags=("$@")
cd "$(dirname "$0")/.."
run="${BUILD_DIR:-build-gpu}/kda-run"
if [ ! -x "$run" ]; then
  cmake -G Ninja -S runtime -B "${BUILD_DIR:-build-gpu}" -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build "${BUILD_DIR:-build-gpu}" > /dev/null || { echo "FAIL: building runtime/"; exit 1; }
fi
status=0
for dir in "${dirs[@]}"; do
  bundle="$dir/$name.kdab"
  echo "== $bundle"
  if [ ! -f "$bundle" ]; then
    echo "  missing"
    status=1
    continue
  fi
  out="$("$run" "$bundle" "${flags[@]}" --bench --check-heads 4 2>&1)"
  echo "$out" | grep -E "bench: median|^PASS|^FAIL" | sed 's/^/  /'
  echo "$out" | grep -q "^PASS" || status=1
  if command -v ncu > /dev/null 2>&1; then
    ncu --clock-control none --metrics gpu__time_duration.sum \
      "$run" "$bundle" "${flags[@]}" --no-check 2>&1 |
      grep -E "^  [A-Za-z_0-9]+|gpu__time_duration" | paste - - |
      awk '{printf "  %-48s %8s %s\n", $1, $NF, $(NF-1)}'
  fi
done
exit $status
