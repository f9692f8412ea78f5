#!/usr/bin/env bash
# Sanitizer tier on a GPU machine: runs the small cases of one or more
# bundle directories (each with cases.txt, as scripts/gpu-check.sh reads
# them) under compute-sanitizer's memcheck, racecheck, synccheck and
# initcheck, and prints one line per (tool, case) and a summary.
#
#   scripts/gpu-sanitize.sh BUNDLE_DIR...
#
# A case is run when B * T * HV (its --batch, --seq-len and --value-heads)
# is at most SANITIZE_MAX_TOKENS (default 16384): the instrumented kernels
# run 10-100x slower than plain ones. kda-run runs with --no-check (the
# numerics are scripts/gpu-check.sh's job); a case fails when the tool
# reports an error or kda-run fails. The runtime is the one that
# scripts/gpu-check.sh builds into build-gpu/ (built here when missing).
#
# Environment: SANITIZE_TOOLS (default "memcheck racecheck synccheck
# initcheck"), SANITIZE_MAX_TOKENS, SANITIZE_TIMEOUT (seconds per run,
# default 600; a run that takes longer fails), SANITIZE_JOBS (parallel
# runs, default nproc / 2), SANITIZE_LOGS (each run's full output, default
# build-gpu/sanitize-logs), BUILD_DIR (default build-gpu).
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: scripts/gpu-sanitize.sh BUNDLE_DIR... (directories with *.kdab and cases.txt)" >&2
  exit 2
fi
dirs=()
for d in "$@"; do
  if [ ! -f "$d/cases.txt" ]; then
    echo "error: $d has no cases.txt" >&2
    exit 2
  fi
  dirs+=("$(cd "$d" && pwd)")
done
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-gpu}"
logs="${SANITIZE_LOGS:-$build/sanitize-logs}"
tools="${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
max_tokens="${SANITIZE_MAX_TOKENS:-16384}"
time_limit="${SANITIZE_TIMEOUT:-600}"
cpus="$(nproc 2>/dev/null || echo 2)"
jobs="${SANITIZE_JOBS:-$(( cpus > 1 ? cpus / 2 : 1 ))}"

sanitizer="$(command -v compute-sanitizer || true)"
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [ -z "$sanitizer" ] && [ -x "$c" ] && sanitizer="$c"
done
if [ -z "$sanitizer" ]; then
  echo "FAIL: compute-sanitizer not found (PATH, /usr/local/cuda)"
  exit 1
fi
run="$build/kda-run"
if [ ! -x "$run" ]; then
  cmake -G Ninja -S runtime -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build "$build" > /dev/null || { echo "FAIL: building runtime/"; exit 1; }
fi
mkdir -p "$logs"

# One work item per (tool, case): "tool<TAB>dir<TAB>case line".
work="$(mktemp)"
trap 'rm -f "$work"' EXIT
skipped=0
for dir in "${dirs[@]}"; do
  while IFS= read -r line; do
    line="${line%%#*}"
    [ -z "${line// }" ] && continue
    read -r -a words <<< "$line"
    b=1 t=0 hv=1
    for ((i = 1; i < ${#words[@]}; ++i)); do
      case "${words[i]}" in
        --batch) b="${words[i+1]}" ;;
        --seq-len) t="${words[i+1]}" ;;
        --value-heads) hv="${words[i+1]}" ;;
      esac
    done
    if [ $(( b * t * hv )) -gt "$max_tokens" ]; then
      skipped=$((skipped + 1))
      continue
    fi
    for tool in $tools; do
      printf '%s\t%s\t%s\n' "$tool" "$dir" "$line" >> "$work"
    done
  done < "$dir/cases.txt"
done

one() {
  local tool="$1" dir="$2" line="$3"
  read -r -a words <<< "$line"
  local bundle="${words[0]}" log
  log="$logs/$tool-$(basename "$dir")-$(echo "$line" | tr -c 'A-Za-z0-9_.,-' '_' | cut -c1-150).log"
  local extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  # --check-heads only narrows the float64 check, which --no-check skips.
  local flags=() i
  for ((i = 1; i < ${#words[@]}; ++i)); do
    if [ "${words[i]}" = --check-heads ]; then
      i=$((i + 1))
    else
      flags+=("${words[i]}")
    fi
  done
  timeout "$time_limit" "$sanitizer" --tool "$tool" --error-exitcode 97 --print-limit 20 "${extra[@]}" \
    "$run" "$dir/$bundle" "${flags[@]}" --no-check > "$log" 2>&1
  local rc=$?
  local summary
  summary="$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1 | sed 's/^========= //')"
  if [ $rc -eq 0 ]; then
    printf 'PASS %-9s %s  (%s)\n' "$tool" "$line" "$summary"
  else
    printf 'FAIL %-9s %s  (exit %d; %s; log %s)\n' "$tool" "$line" "$rc" "$summary" "$log"
  fi
}
export -f one
export sanitizer run logs time_limit

echo "== compute-sanitizer: $("$sanitizer" --version | grep -i version | head -n 1)"
echo "== $(wc -l < "$work") runs ($tools), $skipped cases over $max_tokens tokens x value heads skipped, $jobs at a time"
# Each run's line goes to $logs/results.txt as it finishes, so that a run
# cut short still leaves what it found.
: > "$logs/results.txt"
tr '\n' '\0' < "$work" |
  xargs -0 -P "$jobs" -I{} bash -c 'IFS=$'"'"'\t'"'"' read -r tool dir line <<< "$1"; one "$tool" "$dir" "$line" >> "$0/results.txt"' "$logs" {}
results="$(cat "$logs/results.txt")"
echo "$results" | sort -k2,2 -k3
passed="$(echo "$results" | grep -c '^PASS' || true)"
failed="$(echo "$results" | grep -c '^FAIL' || true)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
