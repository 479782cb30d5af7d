#!/bin/sh
# Runs the netlib testers of Debian's libblas-test (Level 1, 2 and 3, the
# Fortran and the CBLAS ones) and the NumPy test against
# build/blas/libblas.so.3, with every Level-3 call on the device
# (VNCL_BLAS_MIN_FLOPS=0). A tester passes when it prints every "PASSED"
# line its input asks for (error exits and computational tests), no failure,
# and, for Level 3, the verbose summary shows its calls on the device and
# none on the CPU BLAS. Prints "N passed, N failed" last.
# Usage: check-blas.sh BUILD_DIR
set -u
B=${1:-build}
lib=$(cd "$B/blas" && pwd)
multiarch=$(cc -print-multiarch 2>/dev/null || dpkg-architecture -qDEB_HOST_MULTIARCH)
T=/usr/lib/$multiarch/blas
log=$B/blas-check
rm -rf "$log"
mkdir -p "$log"
log=$(cd "$log" && pwd)
passed=0
failed=0
if [ ! -x "$T/xblat3s" ]; then
  echo "check-blas: $T/xblat3s not found: install libblas-test"
  echo "0 passed, 1 failed"
  exit 1
fi
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export VNCL_BLAS_MIN_FLOPS=0 VNCL_BLAS_VERBOSE=1
unset VNCL_BLAS_ROUTINES VNCL_BLAS_CONFIG VNCL_BLAS_CPU_LIBRARY

fail() {
  echo "FAIL    $1: $2 (log: $3)"
  failed=$((failed + 1))
}

# run NAME INPUT(or -) EXPECTED_PASSED_LINES LEVEL3(0/1)
run() {
  name=$1 input=$2 want=$3 l3=$4
  dir=$log/$name
  mkdir -p "$dir"
  start=$(date +%s)
  if [ "$input" = - ]; then
    (cd "$dir" && timeout -k 5 300 "$T/$name" > out.txt 2> err.txt)
  else
    (cd "$dir" && timeout -k 5 300 "$T/$name" < "$T/$input" > out.txt 2> err.txt)
  fi
  rc=$?
  secs=$(( $(date +%s) - start ))
  # The Fortran testers of Level 2 and 3 write their summary to a file.
  cat "$dir"/*.out "$dir/out.txt" > "$dir/all.txt" 2>/dev/null
  if [ $rc -ne 0 ]; then fail "$name" "exit $rc" "$dir"; return; fi
  if grep -qE 'FAIL|\*\*\*\*\*|NOT DETECTED|SUSPECT' "$dir/all.txt"; then
    fail "$name" "$(grep -m1 -E 'FAIL|\*\*\*\*\*|NOT DETECTED|SUSPECT' "$dir/all.txt")" "$dir"
    return
  fi
  got=$(grep -cE 'PASSED THE .*COMPUTATIONAL TESTS|PASSED THE TESTS OF ERROR-EXITS|----- PASS -----' "$dir/all.txt")
  if [ "$got" -ne "$want" ]; then
    fail "$name" "$got PASSED lines, want $want" "$dir"; return
  fi
  if [ "$l3" = 1 ]; then
    # every Level-3 routine called went to the device, none to the CPU
    dev=$(grep -E '^vncl-blas: [sdcz][a-z0-9]+ +device' "$dir/err.txt" | \
      grep -vc ' device 0 calls')
    cpu=$(grep -E '^vncl-blas: [sdcz][a-z0-9]+ +device' "$dir/err.txt" | \
      grep -vc 'cpu 0 calls')
    routines=$(grep -cE '^vncl-blas: [sdcz][a-z0-9]+ +device' "$dir/err.txt")
    if [ "$routines" -eq 0 ] || [ "$dev" -ne "$routines" ] || [ "$cpu" -ne 0 ]; then
      fail "$name" "verbose summary: $dev of $routines routines on the device, $cpu on the CPU" "$dir"
      return
    fi
    echo "ok      $name: $got PASSED lines, $routines routines on the device (${secs}s)"
  else
    echo "ok      $name: $got PASSED lines (${secs}s)"
  fi
  passed=$((passed + 1))
}

# Expected PASSED lines: Level 1 one per routine tested (13 real, 10
# complex in the Fortran testers); Level 2 and 3 two
# per routine (error exits and computations), three for CBLAS (column- and
# row-major computations).
run xblat1s - 13 0
run xblat1d - 13 0
run xblat1c - 10 0
run xblat1z - 10 0
run xscblat1 - 10 0
run xdcblat1 - 10 0
run xccblat1 - 10 0
run xzcblat1 - 10 0
for p in s d; do
  run xblat2$p ${p}blat2.in 32 0
  run x${p}cblat2 ${p}in2 48 0
  run xblat3$p ${p}blat3.in 12 1
  run x${p}cblat3 ${p}in3 18 1
done
for p in c z; do
  run xblat2$p ${p}blat2.in 34 0
  run x${p}cblat2 ${p}in2 51 0
  run xblat3$p ${p}blat3.in 18 1
  run x${p}cblat3 ${p}in3 27 1
done

# The settings file: honoured when private, ignored (with a warning) when
# others may write it, since it can name the library that is loaded.
cfgdir=$log/config
mkdir -p "$cfgdir"
cfg=$cfgdir/vncl-blas.conf
printf '# test\nVNCL_BLAS_ROUTINES none\n' > "$cfg"
chmod 600 "$cfg"
(cd "$cfgdir" && VNCL_BLAS_CONFIG="$cfg" VNCL_LOG=warn timeout -k 5 300 \
  "$T/xblat3s" < "$T/sblat3.in" > out.txt 2> private.err)
dev=$(grep -E '^vncl-blas: s[a-z0-9]+ +device' "$cfgdir/private.err" | grep -vc ' device 0 calls')
chmod 666 "$cfg"
(cd "$cfgdir" && VNCL_BLAS_CONFIG="$cfg" VNCL_LOG=warn timeout -k 5 300 \
  "$T/xblat3s" < "$T/sblat3.in" > out.txt 2> loose.err)
ldev=$(grep -E '^vncl-blas: s[a-z0-9]+ +device' "$cfgdir/loose.err" | grep -vc ' device 0 calls')
# A bad value warns while the settings are read (it once deadlocked there).
(cd "$cfgdir" && VNCL_BLAS_ROUTINES=all,-nosuch VNCL_LOG=warn timeout -k 5 60 \
  "$T/xblat3s" < "$T/sblat3.in" > out.txt 2> bad.err)
badrc=$?
if [ "$badrc" -ne 0 ] || ! grep -q 'unknown routine "nosuch"' "$cfgdir/bad.err"; then
  fail blas_config "VNCL_BLAS_ROUTINES=all,-nosuch: exit $badrc, no warning" "$cfgdir/bad.err"
elif [ "$dev" -ne 0 ]; then
  fail blas_config "a private file's 'VNCL_BLAS_ROUTINES none' left $dev routines on the device" "$cfgdir/private.err"
elif ! grep -q 'VNCL_BLAS_CONFIG .*ignored' "$cfgdir/loose.err" || [ "$ldev" -eq 0 ]; then
  fail blas_config "a file others may write was not ignored" "$cfgdir/loose.err"
else
  echo "ok      blas_config: a private settings file applies, a world-writable one is ignored with a warning"
  passed=$((passed + 1))
fi

# NumPy through the drop-in
PY=${PYTHON:-/usr/bin/python3}
if "$PY" -c 'import numpy' 2>/dev/null; then
  start=$(date +%s)
  "$PY" test/blas/numpy_dropin.py > "$log/numpy.txt" 2> "$log/numpy.err"
  rc=$?
  secs=$(( $(date +%s) - start ))
  if [ $rc -ne 0 ]; then
    fail numpy_dropin "exit $rc: $(tail -n 3 "$log/numpy.err" "$log/numpy.txt")" "$log/numpy.txt"
  elif ! grep -qE '^vncl-blas: sgemm +device [1-9]' "$log/numpy.err" ||
       ! grep -qE '^vncl-blas: dgemm +device [1-9]' "$log/numpy.err" ||
       ! grep -qE '^vncl-blas: [sd]syrk +device [1-9]' "$log/numpy.err"; then
    fail numpy_dropin "NumPy's products did not reach the device: $(cat "$log/numpy.err")" "$log/numpy.err"
  else
    echo "ok      numpy_dropin: $(tail -n 1 "$log/numpy.txt") (${secs}s)"
    passed=$((passed + 1))
  fi
else
  fail numpy_dropin "python3-numpy not installed" "-"
fi

# The C tests of the semantics the testers do not cover
if [ -x "$B/test/blas/test_dropin" ]; then
  start=$(date +%s)
  timeout -k 5 300 "$B/test/blas/test_dropin" > "$log/test_dropin.txt" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  np=$(grep -o '\[  PASSED  \] [0-9]* test' "$log/test_dropin.txt" | awk '{print $4}')
  if [ $rc -eq 0 ] && [ -n "$np" ]; then
    echo "ok      test_dropin: $np passed (${secs}s)"
    passed=$((passed + 1))
  else
    fail test_dropin "exit $rc: $(grep -E 'FAIL|ERROR' "$log/test_dropin.txt" | head -n 5)" "$log/test_dropin.txt"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
