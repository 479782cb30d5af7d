#!/bin/sh
# make check-oclgrind: runs build/test/oclgrind_check under Oclgrind with
# its data-race detector, once per vendor limit profile and GEMM parameter
# set, and fails on any Oclgrind report (race, invalid or out-of-bounds
# access, API error, a kernel it cannot build) as well as on wrong numbers.
# docs/portability.md describes what runs and why.
#
#   sh scripts/check-oclgrind.sh [BUILD_DIR [RUN...]]
#
# With RUN names (nvidia, amd, ...: the first column below) only those run.
# Each run writes BUILD_DIR/oclgrind/NAME.out (the program's output) and
# NAME.log (Oclgrind's reports); a run passes when the program exits
# 0, the log is empty and the output holds no Oclgrind error.
#
# Runs go OCLGRIND_CHECK_JOBS at a time (default: the online CPUs), each in
# a shell of its own: this script again as `--one NAME LMEM WG ARGS...`,
# with OUT, BIN, TIMEOUT and VNCL_CACHE_DIR in the environment.
set -u
MODE=all
if [ "${1:-}" = --one ]; then
  MODE=one
  shift
else
  B=${1:-build}
  [ $# -gt 0 ] && shift
  ONLY=" $* "
  BIN=$B/test/oclgrind_check
  OUT=$B/oclgrind
  TIMEOUT=${OCLGRIND_CHECK_TIMEOUT:-400}
fi
if [ $MODE = all ] && ! command -v oclgrind >/dev/null 2>&1; then
  echo "check-oclgrind: oclgrind not found (Debian package oclgrind; scripts/install-deps.sh installs it)"
  exit 1
fi
if [ $MODE = all ] && [ ! -x "$BIN" ]; then
  echo "check-oclgrind: $BIN not built (make $BIN)"
  exit 1
fi
[ $MODE = all ] && mkdir -p "$OUT"
# Programs built for Oclgrind are kept between runs (vncl's binary cache
# keys on the platform and options; the simulator checks every run).
# Reports then say "(source not available)" for the kernel lines;
# OCLGRIND_CHECK_CACHE=off builds from source and shows them.
[ $MODE = all ] && export VNCL_CACHE_DIR="${OCLGRIND_CHECK_CACHE:-$OUT/cache}"
unset VNCL_DEVICE VNCL_GEMM_BACKEND VNCL_FFT_BACKEND VNCL_TUNING_DB

# name  local-memory-bytes  max-work-group  oclgrind_check arguments
# Vendor profiles: the limits each vendor's GPUs really have (NVIDIA 48 KiB
# of local memory per group and 1024 work-items; AMD 64 KiB and 256; Intel
# 64 KiB and 256 or 512), each with its vendor's GEMM set and every other
# family. Then Oclgrind's own limits (32 KiB, 1024) with the generic sets;
# generic-gpu runs GEMM and FFT with them, cpu-rows and cpu-rows-reduce
# the ops kernels in their GPU and then their CPU shapes (--cpu-rows; one
# run, generic-gpu, held all of it until 2026-12-07 and took 370-390 s
# here, past the timeout on the CI machine), avx2-rows softmax and the
# reductions in the CPU shapes alone again as on an AVX2 CPU (native
# vectors of 8 floats: rows of 8 to 16 as 8 x 8 squares), cpu512 and
# cpu256 the CPU rows' GEMM sets (gemm_small's wide tiles).
RUNS="nvidia 49152 1024 --set nvidia
amd 65536 256 --set amd
intel-256 65536 256 --set intel
intel-512 65536 512 --set intel --parts gemm
generic-gpu 32768 1024 --set gpu --parts gemm,fft
cpu-rows 32768 1024 --set gpu --cpu-rows --parts ops_rows_fit,elementwise,cast,transpose,softmax,random
cpu-rows-reduce 32768 1024 --set gpu --cpu-rows --parts reduce
avx2-rows 32768 1024 --set gpu --cpu-rows --native 8 --parts softmax,reduce
any-device 32768 1024 --set any --parts gemm
last-resort 32768 1024 --set last --parts gemm
cpu512 32768 1024 --set cpu512 --parts gemm
cpu256 32768 1024 --set cpu256 --parts gemm
reference 32768 1024 --set ref --parts gemm"

start=$(date +%s)
# Every run appends the kernels its contexts created (oclgrind_check
# --kernels) to a list of its own; after a full run the lists must hold
# every kernel of cl_kernels/ but the build machinery's self-test.
KLIST=$OUT/kernels.txt
tab=$(printf '\t')

# One run: NAME LMEM WG ARGS... Writes $OUT/NAME.report: "ok N" or "fail N"
# (N tests) on its first line, then what to print.
run_one() {
  name=$1 lmem=$2 wg=$3
  shift 3
  args="$*"
  log=$OUT/$name.log
  out=$OUT/$name.out
  rep=$OUT/$name.report
  rm -f "$log" "$out.rc" "$rep"
  t0=$(date +%s)
  # Oclgrind opens its log anew, truncating it, for every OpenCL context
  # the program creates, so a plain file would keep only the last
  # context's reports. Its log is therefore a pipe (fd 3), which opening
  # does not truncate, read into the file by cat.
  # shellcheck disable=SC2086
  ( OCLGRIND_LOCAL_MEM_SIZE=$lmem OCLGRIND_MAX_WGSIZE=$wg \
      timeout -k 10 "$TIMEOUT" oclgrind --data-races --check-api \
      --log /dev/fd/3 "$BIN" $args --kernels "$OUT/$name.kernels" >"$out" 2>&1
    echo $? >"$out.rc" ) 3>&1 | cat >"$log"
  rc=$(cat "$out.rc" 2>/dev/null || echo 1)
  secs=$(( $(date +%s) - t0 ))
  n=$(grep -o 'PASSED  \] [0-9]* test' "$out" | awk '{s+=$3} END {print s+0}')
  reports=0
  [ -s "$log" ] && reports=$(grep -cE '^(Read|Write|Invalid|Uninitialized|Work-group|Oclgrind)|error' "$log")
  [ -s "$log" ] && [ "$reports" -eq 0 ] && reports=1
  fatal=$(grep -cE 'OCLGRIND FATAL|Oclgrind - |Undefined external function' "$out")
  what="$lmem bytes local, $wg work-items, $args"
  {
    if [ "$rc" -eq 0 ] && [ "$reports" -eq 0 ] && [ "$fatal" -eq 0 ]; then
      echo "ok $n"
      echo "ok      $name ($what): $n tests, no Oclgrind report (${secs}s)"
    else
      echo "fail $n"
      if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "TIMEOUT $name ($what) after ${TIMEOUT}s"
      else
        echo "FAIL    $name ($what): exit $rc, $reports Oclgrind report(s), $fatal fatal (${secs}s)"
      fi
      grep -E 'ERROR|FAIL|table bug|FATAL|Undefined|When creating' "$out" | head -n 20
      if [ -s "$log" ]; then
        echo "  first reports ($log):"
        grep -E '^(Read|Write|Invalid|Uninitialized|Work-group)|Kernel:|At line|^'"$tab"'  ' "$log" | head -n 24 | sed 's/^/    /'
        echo "  by kernel:"
        grep -E 'Kernel:' "$log" | sort | uniq -c | sed 's/^/    /'
      fi
    fi
  } >"$rep"
}

if [ $MODE = one ]; then
  run_one "$@"
  exit 0
fi
rm -f "$KLIST" "$OUT"/*.kernels "$OUT"/*.report

# The runs, JOBS at a time (the simulator runs on one thread; default: the
# online CPUs, OCLGRIND_CHECK_JOBS sets it), each from a shell of its own
# (this script with --one); their reports are printed in the table's order.
JOBS=${OCLGRIND_CHECK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
SELECTED=$(printf '%s\n' "$RUNS" | while read -r name rest; do
  [ -n "$name" ] || continue
  [ "$ONLY" = "  " ] || case "$ONLY" in *" $name "*) ;; *) continue ;; esac
  echo "$name $rest"
done)
export OUT BIN TIMEOUT VNCL_CACHE_DIR
# Launched longest first, so that the short GEMM-only runs fill in at the
# end instead of a long one starting last (per-run times on the 2-core
# Zen 3 of 2026-12-07, the programs built afresh: nvidia 228 s, amd 225,
# intel-256 206; with them built: cpu-rows-reduce 127, cpu-rows 25 + 62,
# generic-gpu 61, avx2-rows 59, the rest 9-33).
FIRST="nvidia amd intel-256 cpu-rows-reduce cpu-rows"
{
  for f in $FIRST; do
    printf '%s\n' "$SELECTED" | awk -v n="$f" '$1 == n'
  done
  printf '%s\n' "$SELECTED" | awk -v f=" $FIRST " 'index(f, " " $1 " ") == 0'
} | grep . | xargs -P "$JOBS" -L 1 sh "$0" --one
passed=0
failed=0
tests=0
failed_names=""
for name in $(printf '%s\n' "$SELECTED" | awk '{print $1}'); do
  rep=$OUT/$name.report
  if [ -s "$rep" ]; then
    read -r status n <"$rep"
    tail -n +2 "$rep"
  else
    status=fail n=0
    echo "FAIL    $name: no report (the run did not finish)"
  fi
  if [ "$status" = ok ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_names="$failed_names $name"
  fi
  tests=$((tests + n))
  cat "$OUT/$name.kernels" >>"$KLIST" 2>/dev/null
done
total=$(( $(date +%s) - start ))
echo "check-oclgrind: $passed passed, $failed failed ($tests tests in all, ${total}s)"
if [ "$ONLY" = "  " ]; then
  # Kernel names as declared (__kernel ... void NAME(, over line breaks;
  # names a macro pastes together are left out).
  KDIR=$(dirname "$0")/../cl_kernels
  missing=$(for f in "$KDIR"/*.cl; do
      case $f in */selftest.cl) continue ;; esac
      tr '\n\\' '  ' <"$f" | grep -o '__kernel[^;{}]*void *[A-Za-z_0-9#]* *('
    done | sed 's/.*void *//; s/ *($//' | grep -v '#' | sort -u |
    while read -r k; do
      grep -q " $k\$" "$KLIST" 2>/dev/null || printf ' %s' "$k"
    done)
  ran=$(awk '{print $2}' "$KLIST" 2>/dev/null | sort -u | wc -l)
  if [ -n "$missing" ]; then
    echo "check-oclgrind: kernels that no run created:$missing"
    failed=$((failed + 1))
    failed_names="$failed_names kernel-coverage"
  else
    echo "check-oclgrind: every kernel of cl_kernels/ was created under Oclgrind ($ran names in $KLIST)"
  fi
fi
[ $failed -eq 0 ] || { echo "check-oclgrind: failed:$failed_names"; exit 1; }
