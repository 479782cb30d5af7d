#!/bin/sh
# Checks that data flows one way through lib/'s layers: no object file of a
# layer refers to a symbol defined in a layer above it, nor in a peer of its
# own rank. Reads the symbols of the built objects (nm), so calls count, not
# only includes (which are checked as well). The order (docs/architecture.md):
#   runtime < transfer, telemetry < tuning < gemm, ops, fft < group, api
# (the autotuner is an application in tools/autotune/, over include/ only)
# Known debts are listed in scripts/layer-debts.txt, one "FROM TO SYMBOL"
# a line, each with the step of issue 16 that removes it; anything else
# fails, and so does a listed debt that no longer exists (remove the line).
# Usage: check-layers.sh BUILD_DIR
set -eu
B=${1:-build}
obj=$B/obj
debts=$(dirname "$0")/layer-debts.txt
rank() {
  case $1 in
    runtime) echo 0 ;;
    transfer|telemetry) echo 1 ;;
    tuning) echo 2 ;;
    gemm|ops|fft) echo 3 ;;
    group|api) echo 4 ;;
    *) echo "check-layers: unknown layer '$1' (add it to the order)" >&2; exit 2 ;;
  esac
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$obj"/*/; do
  layer=$(basename "$d")
  case $layer in blas|blas-gen|mpi|bench|tools) continue ;; esac
  rank "$layer" > /dev/null
  for o in "$d"*.o; do
    nm --defined-only "$o" | awk -v L="$layer" '$2 ~ /^[TDBR]$/ {print $3, L}' >> "$tmp/defs"
    nm --undefined-only "$o" | awk -v L="$layer" -v F="$(basename "$o")" '{print $2, L, F}' >> "$tmp/uses"
  done
done
# Includes count too: a header of a higher layer or a peer, by folder. Each
# is a use of the pseudo-symbol "include:LAYER/NAME.h", defined in LAYER.
src=$(dirname "$0")/../lib
for f in "$src"/*/*.[ch]; do
  layer=$(basename "$(dirname "$f")")
  grep -o '^#include "[a-z_]*/[a-z_]*\.h"' "$f" | sed 's/#include "//; s/"$//' |
  while read -r h; do
    echo "include:$h ${h%%/*}" >> "$tmp/defs"
    echo "include:$h $layer $(basename "$f")" >> "$tmp/uses"
  done
done
sort -u "$tmp/defs" > "$tmp/defs.s"
bad=0
found=""
while read -r sym from file; do
  to=$(awk -v s="$sym" '$1 == s {print $2; exit}' "$tmp/defs.s")
  [ -n "$to" ] || continue            # outside lib/ (OpenCL, libc, ...)
  [ "$to" = "$from" ] && continue
  rf=$(rank "$from"); rt=$(rank "$to")
  [ "$rt" -lt "$rf" ] && continue     # downward: fine
  found="$found$from $to $sym
"
  if ! grep -qE "^$from $to $sym( |$)" "$debts" 2>/dev/null; then
    if [ "$rt" -eq "$rf" ]; then kind="a peer"; else kind="a higher layer"; fi
    case $sym in
      include:*) echo "check-layers: $from/$file includes ${sym#include:} of $kind ($to)" ;;
      *) echo "check-layers: $from/$file calls $sym of $kind ($to)" ;;
    esac
    bad=$((bad + 1))
  fi
done < "$tmp/uses"
# A debt that is paid must leave the list.
if [ -f "$debts" ]; then
  while read -r from to sym rest; do
    case $from in ''|\#*) continue ;; esac
    if ! printf '%s' "$found" | grep -q "^$from $to $sym\$"; then
      echo "check-layers: $from -> $to $sym is listed in $(basename "$debts") but no longer used: remove the line"
      bad=$((bad + 1))
    fi
  done < "$debts"
fi
ndebt=$(printf '%s' "$found" | grep -c . || true)
if [ "$bad" -ne 0 ]; then
  echo "check-layers: $bad violation(s)"
  exit 1
fi
echo "check-layers: lib/ calls flow downward ($ndebt listed debt(s) in $(basename "$debts"))"
