#!/bin/sh
# Runs each test binary in its own process with a time limit, so that a hang
# cannot stall the suite, and prints one closing line "N passed, N failed".
# Usage: run-tests.sh LOGDIR BINARY...
set -u
logdir=$1
shift
# 1200 s a binary: a hang is caught all the same, and on a machine with
# empty caches a binary builds every program it uses first (PoCL: 0.3 to
# 10 s each); test_ops_reduce took 637 s so on 2026-12-06 (Zen 5, 2
# cores), under 2 min with its programs cached, before it was split in
# two (438 s the longer half; docs/contributing.md).
limit=${VNCL_TEST_TIMEOUT:-1200}
passed=0
failed=0
skipped=0
failed_bins=""
mkdir -p "$logdir"
for t in "$@"; do
  name=$(basename "$t")
  log="$logdir/$name.log"
  start=$(date +%s)
  timeout -k 10 "$limit" "$t" >"$log" 2>&1
  rc=$?
  # LeakSanitizer's own tracer sometimes crashes while it stops the threads
  # at exit ("Tracer caught signal 11", then "LeakSanitizer has encountered
  # a fatal error"), after every test has passed and before any leak check
  # (google/sanitizers#1353; seen once in CI on test_gemm, 2026-12-05, and
  # in 85 local runs never). That is no finding about our code, so such a
  # program runs once more and the second run counts; a leak report
  # ("detected memory leaks") or a failed test is never run again.
  if [ "$rc" -ne 0 ] &&
     grep 'LeakSanitizer has encountered a fatal error' "$log" >/dev/null &&
     ! grep -E 'detected memory leaks|^\[  FAILED  \]' "$log" >/dev/null; then
    mv "$log" "$log.lsan-tracer"
    echo "note    $name: LeakSanitizer's tracer crashed at exit (not a" \
      "finding; log: $log.lsan-tracer); running it once more"
    timeout -k 10 "$limit" "$t" >"$log" 2>&1
    rc=$?
  fi
  secs=$(( $(date +%s) - start ))
  # cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)..."
  np=$(grep -o '\[  PASSED  \] [0-9]* test' "$log" | awk '{s+=$4} END {print s+0}')
  nf=$(grep -o '\[  FAILED  \] [0-9]* test' "$log" | awk '{s+=$4} END {print s+0}')
  ns=$(grep -c '^\[  SKIPPED \] [a-z]' "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "TIMEOUT $name after ${limit}s (log: $log)"
    tail -n 20 "$log"
    nf=$((nf + 1))
  elif [ "$rc" -ne 0 ] && [ "$nf" -eq 0 ]; then
    echo "CRASH   $name exit $rc (log: $log)"
    tail -n 30 "$log"
    nf=1
  elif [ "$nf" -ne 0 ]; then
    echo "FAIL    $name: $np passed, $nf failed (${secs}s)"
    grep -E '^\[  (ERROR|FAILED)|error|Error|FAIL' "$log" | head -n 40
  else
    if [ "$ns" -ne 0 ]; then
      echo "ok      $name: $np passed, $ns skipped (${secs}s)"
      grep -h '^skipped: ' "$log" | sort | uniq -c | sed 's/^ */          /'
    else
      echo "ok      $name: $np passed (${secs}s)"
    fi
  fi
  passed=$((passed + np))
  failed=$((failed + nf))
  skipped=$((skipped + ns))
  [ "$nf" -ne 0 ] && failed_bins="$failed_bins $name"
done
if [ "$skipped" -ne 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] || { echo "failing:$failed_bins"; exit 1; }
