#!/bin/sh
# The drop-in BLAS exports exactly the reference libblas3's names: none
# missing, none extra (so no vncl_* or other internal name leaks).
# Usage: check-blas-symbols.sh OUR_LIBBLAS REFERENCE_LIBBLAS
set -eu
ours=$1
ref=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$ours" | awk '{print $3}' | grep -v '^_' | sort > "$tmp/ours"
soname=$(objdump -p "$ours" | awk '/SONAME/ {print $2}')
[ "$soname" = libblas.so.3 ] || { echo "checksymbols-blas: soname $soname, want libblas.so.3"; exit 1; }
if [ ! -f "$ref" ]; then
  echo "checksymbols-blas: $(wc -l < "$tmp/ours") exported symbols (no reference library at $ref to compare)"
  grep -q '^vncl_' "$tmp/ours" && { echo "checksymbols-blas: vncl_ names exported"; exit 1; }
  exit 0
fi
nm -D --defined-only "$ref" | awk '{print $3}' | grep -v '^_' | sort > "$tmp/ref"
missing=$(comm -13 "$tmp/ours" "$tmp/ref")
extra=$(comm -23 "$tmp/ours" "$tmp/ref")
if [ -n "$missing$extra" ]; then
  [ -n "$missing" ] && echo "checksymbols-blas: missing:" $missing
  [ -n "$extra" ] && echo "checksymbols-blas: not in the reference:" $extra
  exit 1
fi
echo "checksymbols-blas: $(wc -l < "$tmp/ours") exported symbols, the same as $ref; soname $soname"
