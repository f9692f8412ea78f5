#!/usr/bin/env bash
# Compiles the benchmark bundles of scripts/make-bench-bundles.sh for several
# git revisions (branches, tags, commits), one directory each, to time them
# side by side with scripts/gpu-compare.sh on a GPU machine:
#
#   scripts/make-revision-bundles.sh OUT_DIR REV...
#   scripts/make-revision-bundles.sh /tmp/ab main my-branch
#   scripts/gpu-compare.sh fwd_default_h96_hv96 /tmp/ab/main /tmp/ab/my-branch \
#       -- --batch 1 --seq-len 8192 --heads 96 --value-heads 96
#
# Each revision is checked out in turn in this work tree and built
# incrementally in build/ (ninja); the tree must have no uncommitted changes
# to tracked files, and the revision checked out before is restored (and
# its kda-translate rebuilt) at the end, also on failure. A revision's
# directory is named after it, with '/' replaced by '-'.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/make-revision-bundles.sh OUT_DIR REV..." >&2
  exit 2
fi
out="$1"
shift
cd "$(dirname "$0")/.."
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "error: uncommitted changes to tracked files; commit or stash them first" >&2
  exit 1
fi
start="$(git symbolic-ref --quiet --short HEAD || git rev-parse HEAD)"
restore() { git checkout -q "$start" && ninja -C build kda-translate > /dev/null; }
trap restore EXIT
mkdir -p "$out"
for rev in "$@"; do
  dir="$out/${rev//\//-}"
  echo "== $rev -> $dir"
  git checkout -q "$rev"
  ninja -C build kda-translate > /dev/null
  rm -rf "$dir"
  scripts/make-bench-bundles.sh build "$dir" > /dev/null
done
