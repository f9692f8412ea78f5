#!/usr/bin/env bash
# GPU tier on a GPU machine without MLIR (Ubuntu 24.04, CMake 4, CUDA 13):
# builds runtime/ standalone into build-gpu/ (or reuses a carried one), runs
# the runtime's host tests and its GPU tests, then kda-run on every case of
# BUNDLE_DIR/cases.txt, and prints one line per case and a summary.
#
#   scripts/gpu-check.sh BUNDLE_DIR
#
# BUNDLE_DIR holds the bundles (*.kdab, e.g. from scripts/make-gpu-bundles.sh)
# and cases.txt: one case per line, `<bundle file> <kda-run flags...>`
# ('#' starts a comment). Exits non-zero if anything fails.
#
# Environment: GPU_CHECK_JOBS (parallel kda-run cases, default: nproc / 2),
# GPU_CHECK_LOGS (where each case's full output goes, default
# build-gpu/gpu-check-logs), BUILD_DIR (default build-gpu).
set -uo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/gpu-check.sh BUNDLE_DIR (a directory with *.kdab and cases.txt)" >&2
  exit 2
fi
bundles="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
root="$(pwd)"
build="${BUILD_DIR:-build-gpu}"
logs="${GPU_CHECK_LOGS:-$build/gpu-check-logs}"
cpus="$(nproc 2>/dev/null || echo 2)"
jobs="${GPU_CHECK_JOBS:-$(( cpus > 1 ? cpus / 2 : 1 ))}"

echo "== Machine"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/  /'
else
  echo "  nvidia-smi not found"
fi
echo "  $(uname -srm); cmake $(cmake --version | head -1 | awk '{print $3}')$(git -C "$root" rev-parse --short HEAD 2>/dev/null | sed 's/^/; commit /')"

echo "== Building runtime/ into $build"
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
# A build carried from another machine keeps that machine's paths in its
# cache: start it over when the cache points elsewhere.
if [ -f "$build/CMakeCache.txt" ] &&
   ! grep -q "^CMAKE_HOME_DIRECTORY:INTERNAL=$root/runtime\$" "$build/CMakeCache.txt"; then
  echo "  $build was configured elsewhere; reconfiguring"
  rm -rf "$build"
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake "${generator[@]}" -S runtime -B "$build" -DCMAKE_BUILD_TYPE=Release > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; echo "FAIL: configuring runtime/"; exit 1; }
  mv "$build.configure.log" "$build/configure.log"
fi
if ! cmake --build "$build" -j "$cpus" > "$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"
  echo "FAIL: building runtime/"
  exit 1
fi
if grep -q "warning:" "$build/build.log"; then
  echo "  build warnings:"
  grep "warning:" "$build/build.log" | sort -u | sed 's/^/    /'
fi
run="$build/kda-run"
test="$build/kda-runtime-test"
echo "  built $run and $test"

passed=0
failed=0
# record PASS|FAIL TEXT: prints one result line and counts it.
record() {
  echo "$1 $2"
  if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
mkdir -p "$logs"

echo "== Runtime host tests (mock driver)"
if "$test" > "$logs/runtime-host.log" 2>&1; then
  record PASS "kda-runtime-test: $(tail -n 2 "$logs/runtime-host.log" | head -n 1)"
else
  grep -E '^\[FAIL\]' "$logs/runtime-host.log" | sed 's/^/  /'
  record FAIL "kda-runtime-test: $(tail -n 2 "$logs/runtime-host.log" | head -n 1) (log $logs/runtime-host.log)"
fi

shopt -s nullglob
all=("$bundles"/*.kdab)
if [ ${#all[@]} -eq 0 ]; then
  echo "FAIL: no bundles (*.kdab) in $bundles"
  exit 1
fi

echo "== Runtime GPU tests (real driver) on ${#all[@]} bundles"
if "$test" --gpu "${all[@]}" > "$logs/runtime-gpu.log" 2>&1; then
  record PASS "kda-runtime-test --gpu: $(tail -n 2 "$logs/runtime-gpu.log" | head -n 1)"
else
  grep -E '^\[FAIL\]' "$logs/runtime-gpu.log" | head -n 20 | sed 's/^/  /'
  record FAIL "kda-runtime-test --gpu: $(tail -n 2 "$logs/runtime-gpu.log" | head -n 1) (log $logs/runtime-gpu.log)"
fi

if [ ! -f "$bundles/cases.txt" ]; then
  echo "FAIL: $bundles/cases.txt not found"
  exit 1
fi
echo "== kda-run cases from $bundles/cases.txt ($jobs at a time)"
cases=()
while IFS= read -r line || [ -n "$line" ]; do
  line="${line%%#*}"
  line="$(echo "$line" | sed 's/^ *//; s/ *$//')"
  [ -n "$line" ] && cases+=("$line")
done < "$bundles/cases.txt"
declare -A used=()
for line in "${cases[@]}"; do
  used["${line%% *}"]=1
done
for b in "${all[@]}"; do
  name="$(basename "$b")"
  [ -n "${used[$name]:-}" ] || echo "  note: no case runs $name"
done

# run_case INDEX LINE: runs one case, leaving its output and exit code.
run_case() {
  local i=$1 line=$2
  local bundle="${line%% *}" flags="${line#* }"
  [ "$bundle" = "$line" ] && flags=""
  # shellcheck disable=SC2086
  "$run" "$bundles/$bundle" $flags > "$logs/case-$i.log" 2>&1
  echo $? > "$logs/case-$i.rc"
}
export -f run_case
export run bundles logs
start=$(date +%s)
for i in "${!cases[@]}"; do
  printf '%s\0%s\0' "$i" "${cases[$i]}"
done | xargs -0 -n 2 -P "$jobs" bash -c 'run_case "$0" "$1"'

for i in "${!cases[@]}"; do
  rc="$(cat "$logs/case-$i.rc" 2>/dev/null || echo 255)"
  last="$(tail -n 1 "$logs/case-$i.log" 2>/dev/null)"
  if [ "$rc" = 0 ] && [[ "$last" == PASS* ]]; then
    record PASS "${cases[$i]}: ${last#PASS }"
  else
    record FAIL "${cases[$i]}: ${last:-no output} (exit $rc, log $logs/case-$i.log)"
  fi
done
echo "== ${#cases[@]} kda-run cases in $(( $(date +%s) - start )) s"

# The lit GPU tier too, where a full build (MLIR, lit) is present.
if [ -x build/bin/kda-translate ] && [ -f build/test/lit.site.cfg.py ] &&
   command -v lit >/dev/null 2>&1; then
  echo "== lit GPU tier (build/)"
  if KDA_GPU_TESTS=1 lit -sv build/test/Integration/GPU; then
    record PASS "lit build/test/Integration/GPU"
  else
    record FAIL "lit build/test/Integration/GPU"
  fi
else
  echo "== lit GPU tier skipped (no build/ with kda-translate and lit here)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
