#!/bin/sh
# Installs vncl's build, test and benchmark dependencies from Debian's
# packages. Idempotent: does nothing when every package is present.
set -eu
PKGS="build-essential pkg-config ocl-icd-opencl-dev opencl-headers clinfo
pocl-opencl-icd libclblast-dev libclfft-dev libcjson-dev libcmocka-dev
libopenblas-dev libfftw3-dev clang libclang-rt-14-dev libopenmpi-dev openmpi-bin
libblas3 libblas-test python3-numpy cmake oclgrind"
missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps: missing packages:$missing" >&2
  echo "install-deps: run as root or install sudo, or run: apt-get install$missing" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
