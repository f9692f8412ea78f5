#!/usr/bin/env bash
# Compiles the bench bundles of scripts/make-bench-bundles.sh once per
# variant of kda-translate flags, for bench/chunk_fwd_vs_fla.py to time side
# by side (fla, FlashKDA and every variant on the same inputs in one run):
#
#   scripts/make-bench-variants.sh BUILD_DIR OUT_DIR LABEL=FLAGS...
#   scripts/make-bench-variants.sh build variants \
#       'regs=--exact-diagonal-rows --assign-register-layouts' \
#       't256=--tuning-override chunk_recurrence.threads=256,chunk_recurrence.max_registers=128'
#
# OUT_DIR/default gets kda-translate's default form, OUT_DIR/LABEL each
# variant's; the whole-forward bundles only, without their CPU build. Prints
# the BENCH_ALT_DIR value that times the variants beside the default:
#
#   BENCH_ALT_DIR=$(cat OUT_DIR/alt-dirs) python3 bench/chunk_fwd_vs_fla.py \
#       build-gpu/kda-run OUT_DIR/default OUT
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: scripts/make-bench-variants.sh BUILD_DIR OUT_DIR LABEL=FLAGS..." >&2
  exit 2
fi
build="$1"
out="$2"
shift 2
cd "$(dirname "$0")/.."
build_variant() { # DIR FLAGS
  local dir="$1" flags="$2"
  KDA_TRANSLATE_FLAGS="$flags" scripts/make-bench-bundles.sh "$build" "$dir" >/dev/null
  # Only the whole forward is compared; the stage bundles and sources go.
  find "$dir" -maxdepth 1 -type f ! -name 'fwd_*.kdab' -delete
}
for variant in "$@"; do
  label="${variant%%=*}"
  if [ "$label" = "$variant" ] || [[ ! "$label" =~ ^[A-Za-z0-9_]+$ ]] || [ "$label" = default ]; then
    echo "make-bench-variants: expected LABEL=FLAGS (LABEL of letters, digits and _, not 'default'), got '$variant'" >&2
    exit 2
  fi
done
mkdir -p "$out"
build_variant "$out/default" ""
alts=()
for variant in "$@"; do
  label="${variant%%=*}"
  build_variant "$out/$label" "${variant#*=}"
  alts+=("$label=$out/$label")
done
(IFS=,; echo "${alts[*]}") > "$out/alt-dirs"
cat "$out/alt-dirs"
