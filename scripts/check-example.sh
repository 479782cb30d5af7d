#!/bin/sh
# Installs vncl into a temporary prefix and builds and runs the example
# program against it through pkg-config, as a user would.
set -eu
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s install B="$B" PREFIX="$tmp/prefix" >/dev/null
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -o "$tmp/example" examples/example.c \
  $(pkg-config --cflags --libs vncl) -Wl,-rpath,"$tmp/prefix/lib"
out=$("$tmp/example")
echo "$out"
soname=$(objdump -p "$tmp/prefix/lib/libvncl.so" | awk '/SONAME/ {print $2}')
echo "example: built with pkg-config against $tmp/prefix, soname $soname"
echo "$out" | grep -q "example: ok"
