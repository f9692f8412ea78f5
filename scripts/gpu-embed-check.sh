#!/usr/bin/env bash
# The embedding example on a GPU machine: installs the runtime built in
# BUILD_DIR (default build-gpu, as scripts/gpu-check.sh leaves it, built
# here if absent), builds examples/embed against the installed package
# (find_package(KDARuntime)) and runs one forward of BUNDLE with kda-embed.
#
#   scripts/gpu-embed-check.sh BUNDLE [kda-embed flags...]
#   scripts/gpu-embed-check.sh build/bench-bundles/fwd_default_h96_hv96.kdab \
#       --seq-len 8192 --heads 96 --value-heads 96
#
# Prints kda-embed's report; exits non-zero if a step fails or the output
# has non-finite values.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: scripts/gpu-embed-check.sh BUNDLE [kda-embed flags...]" >&2
  exit 2
fi
bundle="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build-gpu}"
generator=()
command -v ninja > /dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake "${generator[@]}" -S runtime -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build "$build" > "$build/embed-runtime-build.log" 2>&1 ||
  { tail -n 20 "$build/embed-runtime-build.log"; echo "FAIL: building runtime/"; exit 1; }
prefix="$build/embed-prefix"
rm -rf "$prefix" "$build/embed"
cmake --install "$build" --prefix "$prefix" > "$build/embed-install.log" 2>&1 ||
  { cat "$build/embed-install.log"; echo "FAIL: installing the runtime"; exit 1; }
cmake "${generator[@]}" -S examples/embed -B "$build/embed" \
  -DCMAKE_PREFIX_PATH="$(cd "$prefix" && pwd)" -DCMAKE_BUILD_TYPE=Release > "$build/embed-configure.log" 2>&1 ||
  { cat "$build/embed-configure.log"; echo "FAIL: configuring examples/embed"; exit 1; }
cmake --build "$build/embed" > "$build/embed-build.log" 2>&1 ||
  { tail -n 20 "$build/embed-build.log"; echo "FAIL: building examples/embed"; exit 1; }
echo "== $build/embed/kda-embed $(basename "$bundle") $*"
"$build/embed/kda-embed" "$bundle" "$@"
