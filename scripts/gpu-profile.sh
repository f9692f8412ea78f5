#!/usr/bin/env bash
# Profiles every kernel of one bundle with Nsight Compute on a GPU machine
# (ncu on the PATH), with the runtime that scripts/gpu-check.sh builds into
# build-gpu/, and prints a short summary per kernel: duration, instructions,
# issue-slot use, L1/shared and DRAM throughput, registers, shared memory,
# occupancy and the cycles between a warp's instructions; the whole report
# goes to OUT_FILE (default BUNDLE.ncu.txt beside the working directory).
#
#   scripts/gpu-profile.sh BUNDLE [-- kda-run shape flags]
#   scripts/gpu-profile.sh bundles/fwd_default_h96_hv96.kdab \
#       -- --batch 1 --seq-len 8192 --heads 96 --value-heads 96
#
# Each kernel is replayed once per section group (about 20 passes), so a
# whole forward at the anchor shapes takes seconds, not minutes. The
# outputs are not checked (--no-check); time and check with kda-run
# --bench-kernels. With GPU_PROFILE_SOURCE=FILE.csv the per-instruction
# source counters are collected too (sections SourceCounters and
# WarpStateStats, in the same passes; the report itself is kept as
# FILE.ncu-rep) and written to FILE.csv, which
# scripts/sass-profile.py summarizes (where the instructions and the stall
# samples go, by loop level and opcode).
set -uo pipefail
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: scripts/gpu-profile.sh BUNDLE [-- kda-run flags]" >&2
  exit 2
fi
bundle="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
[ "${1:-}" = "--" ] && shift
flags=("$@")
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-gpu}"
run="$build/kda-run"
if ! command -v ncu > /dev/null 2>&1; then
  echo "FAIL: ncu (Nsight Compute) is not on the PATH" >&2
  exit 1
fi
if [ ! -x "$run" ]; then
  cmake -G Ninja -S runtime -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build "$build" --target kda-run > /dev/null ||
    { echo "FAIL: building runtime/" >&2; exit 1; }
fi
report="${OUT_FILE:-$(basename "$bundle" .kdab).ncu.txt}"
sections=(SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats
          MemoryWorkloadAnalysis ComputeWorkloadAnalysis InstructionStats)
args=()
for s in "${sections[@]}"; do
  args+=(--section "$s")
done
source_csv="${GPU_PROFILE_SOURCE:-}"
export_args=()
if [ -n "$source_csv" ]; then
  args+=(--section SourceCounters --import-source no)
  export_args=(-o "${source_csv%.csv}" -f)
fi
if ! ncu "${args[@]}" "${export_args[@]}" "$run" "$bundle" "${flags[@]}" --no-check > "$report" 2>&1; then
  tail -n 20 "$report"
  echo "FAIL: ncu (full report in $report)"
  exit 1
fi
if [ -n "$source_csv" ]; then
  # The exported report holds the sections; print them as the plain run
  # would, then the per-instruction page.
  ncu -i "${source_csv%.csv}.ncu-rep" --page details > "$report" 2>&1 &&
    ncu -i "${source_csv%.csv}.ncu-rep" --page source --csv --print-source sass > "$source_csv" 2>&1 ||
    { echo "FAIL: reading ${source_csv%.csv}.ncu-rep"; exit 1; }
  echo "per-instruction counters: $source_csv (scripts/sass-profile.py $source_csv)"
fi
# One block per kernel: its name and grid, then the chosen metrics.
awk '
  /^  [A-Za-z_][A-Za-z_0-9]* \(/ {
    match($0, /\([^)]*\)x\([^)]*\)/)
    printf "%s grid x block %s\n", $1, substr($0, RSTART, RLENGTH); next
  }
  /^    (Duration|Executed Instructions |Issue Slots Busy|L1\/TEX Cache Throughput|DRAM Throughput|Registers Per Thread|Static Shared Memory Per Block|Dynamic Shared Memory Per Block|Achieved Occupancy|Warp Cycles Per Issued Instruction)/ {
    line = $0; sub(/^    /, "", line); gsub(/  +/, " ", line); print "    " line
  }' "$report"
echo "full report: $report"
