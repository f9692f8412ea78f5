#!/usr/bin/env bash
# The Python package on a GPU machine without MLIR: builds runtime/ into
# build-gpu-py/ with the default bundles of DEFAULTS_DIR embedded (built
# here by the top-level build: build/defaults/*.kdab), then runs
# python/tests/test_chunk_kda_gpu.py with the machine's torch; with fla
# importable, kda as fla's backend (test_fla_backend_gpu.py) and fla's
# forward test grids through both entry points (test_fla_grids_gpu.py),
# whose bundles come from BUNDLE_DIR (made where the compiler is by
# `python3 python/tests/test_fla_grids_gpu.py --prebuild`, which prints the
# directory); GRID_CASES=REGEX runs a subset of the grid.
#
#   [BUNDLE_DIR=DIR] [GRID_CASES=REGEX] [FLA_BENCH=1] scripts/gpu-python-check.sh DEFAULTS_DIR
set -uo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-python-check.sh DEFAULTS_DIR (with fwd_*.kdab)" >&2
  exit 2
fi
defaults="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
build=build-gpu-py
entries=()
for f in "$defaults"/fwd_*.kdab; do
  name="$(basename "$f" .kdab)"
  entries+=("$name=$f")
done
list="$(IFS=';'; echo "${entries[*]}")"
cmake -G Ninja -S runtime -B "$build" -DCMAKE_BUILD_TYPE=Release \
  "-DKDA_DEFAULT_BUNDLES=$list" > "$build.log" 2>&1 &&
  cmake --build "$build" --target kda_runtime -j "$(nproc)" >> "$build.log" 2>&1 ||
  { tail -30 "$build.log"; echo "FAIL: building runtime/"; exit 1; }
lib="$(find "$build" -name 'libkda_runtime.so' | head -1)"
KDA_RUNTIME_LIBRARY="$lib" python3 python/tests/test_chunk_kda_gpu.py
status=$?
# kda as fla's backend, when fla is importable (.anchors/fla, or installed).
if [ -d .anchors/fla ] || python3 -c "import fla" 2>/dev/null; then
  PYTHONPATH="$PWD/.anchors${PYTHONPATH:+:$PYTHONPATH}" KDA_RUNTIME_LIBRARY="$lib" \
    python3 python/tests/test_fla_backend_gpu.py ${FLA_BENCH:+--bench} || status=1
  if [ -n "${BUNDLE_DIR:-}" ]; then
    PYTHONPATH="$PWD/.anchors${PYTHONPATH:+:$PYTHONPATH}" KDA_RUNTIME_LIBRARY="$lib" \
      KDA_BUNDLE_PATH="$(cd "$BUNDLE_DIR" && pwd)" KDA_TRANSLATE=0 \
      python3 python/tests/test_fla_grids_gpu.py ${GRID_CASES:+--cases "$GRID_CASES"} || status=1
  else
    echo "fla grids: not run (set BUNDLE_DIR to the bundles of test_fla_grids_gpu.py --prebuild)"
  fi
else
  echo "fla backend test: not run (fla is not importable; put fla's package in .anchors/fla)"
fi
exit $status
