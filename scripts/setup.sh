#!/usr/bin/env bash
# Installs, from Debian's packages, what the build needs and is missing.
# Idempotent and quick when everything is present.
set -euo pipefail

# python3-torch: the Python package's tests (test/Python); python3-venv and
# python3-setuptools: its install test (pip install into a venv, offline).
packages=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools ninja-build lld ccache cmake g++ python3 python3-torch python3-venv python3-setuptools)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
