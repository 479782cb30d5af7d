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

# The same program through the CMake package (find_package(vncl), vncl::vncl).
if command -v cmake >/dev/null 2>&1; then
  mkdir -p "$tmp/cmake-src" "$tmp/cmake-build"
  cp examples/example.c "$tmp/cmake-src/"
  cat > "$tmp/cmake-src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(vncl_example C)
find_package(vncl REQUIRED)
add_executable(example example.c)
target_link_libraries(example PRIVATE vncl::vncl)
CMAKE
  cmake -S "$tmp/cmake-src" -B "$tmp/cmake-build" \
    -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/cmake.log" 2>&1 &&
    cmake --build "$tmp/cmake-build" >>"$tmp/cmake.log" 2>&1 ||
    { cat "$tmp/cmake.log"; echo "example: CMake build failed"; exit 1; }
  out=$("$tmp/cmake-build/example")
  echo "$out" | grep -q "example: ok" || { echo "$out"; exit 1; }
  echo "example: built with CMake (find_package(vncl), vncl::vncl) against $tmp/prefix: ok"
else
  echo "example: cmake not found: the CMake package was not tried"
  exit 1
fi
