#!/bin/sh
# checkldd: the vncl command links only what the library needs. Fails when
# `ldd VNCL` names a benchmark peer (OpenBLAS, FFTW: vncl-bench's alone) or
# any shared library that `ldd LIBVNCL_SO` does not name (the loader, the C
# library and the kernel's vDSO aside).
# Usage: sh scripts/check-ldd.sh build/vncl build/libvncl.so
set -eu
bin=$1
lib=$2
names() { ldd "$1" | awk '{print $1}' | sed 's|.*/||' | sort -u; }
need=$(names "$lib")
bad=""
for n in $(names "$bin"); do
  case $n in
    linux-vdso.so.* | linux-gate.so.* | ld-linux*.so.* | libc.so.*) continue ;;
    *openblas* | *fftw*) bad="$bad $n(peer)"; continue ;;
  esac
  echo "$need" | grep -qxF "$n" || bad="$bad $n"
done
if [ -n "$bad" ]; then
  echo "checkldd: $bin links what libvncl.so does not need:$bad"
  exit 1
fi
echo "checkldd: $bin links $(names "$bin" | wc -l) shared objects, all needed by libvncl.so (no OpenBLAS, no FFTW)"
