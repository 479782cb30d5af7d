#!/usr/bin/env bash
# The prepared device check: one command for a lent GPU machine (docs/benchmarks.md).
#
#   scripts/gpu-check.sh [--device SEL] [--out DIR] [--oclgrind] [--quick]
#                        [--tests LIST] [--budget SECONDS]
#   scripts/gpu-check.sh --pack      (here: a bundle to carry to the machine)
#
# Phases, each under its own time limit and within the total budget (default
# 480 s), the report rewritten after each, so a hang or an early end still
# leaves the figures gathered so far:
#   environment  what is present (compiler, headers, libraries, OpenCL
#                drivers), in one line
#   build        nothing when build/ holds the binaries; else unpacks
#                build/gpu-check-bundle.tar.xz (from --pack) or runs make
#   devices      the OpenCL platforms and devices; no driver or no device
#                matching SEL ends the check here (one line, exit 3 or 4)
#   tests        every test binary with VNCL_DEVICE=SEL, each with a limit
#   bench        `vncl bench --suite gemm`, then `--suite transfer` (CLBlast,
#                OpenBLAS and memcpy measured beside vncl), each on its own
#   autotune     `vncl autotune --quick` with a budget that fits
# Output (DIR, else $OUT, else build/gpu-check): report.json (one JSON
# object) and summary.txt. Exit 0 when every phase that ran passed, 1 when
# one failed or timed out, 3 no OpenCL driver, 4 no device matching SEL,
# 5 no build possible, 2 usage.
#
# --oclgrind runs each command that touches OpenCL as `oclgrind CMD`
# (Oclgrind's LD_PRELOAD does not pass through this script itself), with
# small shapes: a few tests, the quick GEMM bench up to 128 per side, no
# autotune.
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

SEL=gpu
OUTDIR=${OUT:-}
WRAP=""
QUICK=0
TESTS=""
BUDGET=${GPU_CHECK_BUDGET:-480}
PACK=0
usage() {
  sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'
}
while [ $# -gt 0 ]; do
  case $1 in
    --device) SEL=${2:?--device needs a selector}; shift ;;
    --device=*) SEL=${1#*=} ;;
    --out) OUTDIR=${2:?--out needs a folder}; shift ;;
    --out=*) OUTDIR=${1#*=} ;;
    --oclgrind) WRAP=${GPU_CHECK_OCLGRIND:-oclgrind}; QUICK=1 ;;
    --quick) QUICK=1 ;;
    --tests) TESTS=${2:?--tests needs a list}; shift ;;
    --tests=*) TESTS=${1#*=} ;;
    --budget) BUDGET=${2:?--budget needs seconds}; shift ;;
    --budget=*) BUDGET=${1#*=} ;;
    --pack) PACK=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
case $BUDGET in ''|*[!0-9]*) echo "gpu-check: --budget takes seconds" >&2; exit 2 ;; esac

# ---- --pack: the binaries and the libraries they load, for a bare machine --
# The lent machine has no package manager and no network: carry
# build/gpu-check-bundle.tar.xz there. glibc, libstdc++ and libgcc_s are
# left out (every Linux has them; the environment line names any missing).
if [ "$PACK" = 1 ]; then
  [ -x build/vncl ] || { echo "gpu-check --pack: build first (make -j all tests)" >&2; exit 5; }
  rm -rf build/gpu-libs && mkdir -p build/gpu-libs
  bins="build/vncl build/vncl-bench $(ls build/test/test_* 2>/dev/null | grep -v '\.log$')"
  for lib in $(ldd $bins 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1 "=" $3}' | sort -u); do
    name=${lib%%=*}
    case $name in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) continue ;;
    esac
    cp -L "${lib#*=}" "build/gpu-libs/$name"
  done
  files="build/vncl build/vncl-bench build/libvncl.so build/libvncl.so.* build/test/test_* build/test/libfake_*.so build/gpu-libs"
  # shellcheck disable=SC2086
  tar -cJf build/gpu-check-bundle.tar.xz --exclude='*.log' $files || exit 1
  echo "gpu-check --pack: build/gpu-check-bundle.tar.xz ($(du -h build/gpu-check-bundle.tar.xz | cut -f1)," \
       "libraries: $(ls build/gpu-libs | tr '\n' ' '))"
  echo "carry it (the run tool's carry: [\"build/gpu-check-bundle.tar.xz\"]) and run scripts/gpu-check.sh there"
  exit 0
fi

[ -n "$OUTDIR" ] || OUTDIR=build/gpu-check
mkdir -p "$OUTDIR" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)
PARTS=$OUTDIR/.parts
rm -rf "$PARTS" && mkdir -p "$PARTS"
LOGS=$OUTDIR/logs
mkdir -p "$LOGS"
SUMMARY=$OUTDIR/summary.txt
: > "$SUMMARY"
T0=$(date +%s)
DEADLINE=$((T0 + BUDGET))
FAILED=0

say() { echo "gpu-check: $*"; echo "$*" >> "$SUMMARY"; }

# JSON string of $1: backslashes, quotes, tabs, newlines; other control
# characters dropped.
jstr() {
  printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\010\013-\037' |
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' |
    awk 'NR > 1 {printf "\\n"} {printf "%s", $0}')"
}
# A file that holds one whole JSON object or array (as written at the end of
# a run that completed), else null.
jfile() {
  if [ -s "$1" ] && head -c 1 "$1" | grep -q '[{[]' &&
     tail -c 2 "$1" | grep -q '[]}]'; then cat "$1"; else printf 'null'; fi
}
# Sets one top-level field of the report and rewrites report.json.
part() {
  printf '%s' "$2" > "$PARTS/$1"
  {
    printf '{\n"schema": "vncl-gpu-check", "version": 1'
    for f in $(ls "$PARTS"); do
      printf ',\n"%s": ' "${f#*-}"
      cat "$PARTS/$f"
    done
    printf '\n}\n'
  } > "$OUTDIR/report.json.tmp" && mv "$OUTDIR/report.json.tmp" "$OUTDIR/report.json"
}
PHASES=""
# phase NAME STATUS RC SECONDS LIMIT NOTE
phase() {
  [ -n "$PHASES" ] && PHASES="$PHASES, "
  PHASES="$PHASES{\"name\": $(jstr "$1"), \"status\": $(jstr "$2"), \"rc\": $3, \"seconds\": $4, \"limit_s\": $5, \"note\": $(jstr "$6")}"
  part 90-phases "[$PHASES]"
  case $2 in ok|skipped) ;; *) FAILED=1 ;; esac
}
# Seconds a phase may take: its own limit, within what is left of the budget.
limit_for() {
  left=$((DEADLINE - $(date +%s)))
  [ "$left" -lt "$1" ] && echo "$left" || echo "$1"
}
# run LIMIT LOG CMD...: the command (through the wrapper when it touches
# OpenCL: callers pass "cl" as the first word) under a time limit.
run_limited() {
  local rl_lim=$1 rl_log=$2
  shift 2
  if [ "$1" = cl ]; then shift; [ -n "$WRAP" ] && set -- $WRAP "$@"; fi
  timeout -k 10 "$rl_lim" "$@" > "$rl_log" 2>&1
}
finish() {
  part 00-date "$(jstr "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
  part 98-seconds "$(( $(date +%s) - T0 ))"
  part 99-result "$(jstr "$1")"
  say "result: $1 in $(( $(date +%s) - T0 )) s; report $OUTDIR/report.json"
  exit "$2"
}

part 00-date "$(jstr "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
part 01-git_commit "$(jstr "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)")"
part 02-selector "$(jstr "$SEL")"
part 03-wrapper "$(jstr "$WRAP")"
part 04-quick "$([ "$QUICK" = 1 ] && echo true || echo false)"
part 05-budget_s "$BUDGET"
part 06-host "{\"uname\": $(jstr "$(uname -srm)"), \"cpus\": $(nproc 2>/dev/null || echo 0), \"glibc\": $(jstr "$(ldd --version 2>/dev/null | head -n 1)")}"

# ---- environment --------------------------------------------------------
ts=$(date +%s)
present="" missing=""
have() { present="$present $1"; }
lack() { missing="$missing $1"; }
for t in cc make timeout git; do
  command -v "$t" > /dev/null 2>&1 && have "$t" || lack "$t"
done
for t in clinfo oclgrind python3; do
  command -v "$t" > /dev/null 2>&1 && have "$t" || lack "$t(optional)"
done
if command -v cc > /dev/null 2>&1; then
  for h in CL/cl.h clblast_c.h clFFT.h cjson/cJSON.h cmocka.h cblas.h fftw3.h; do
    printf '#include <stddef.h>\n#include <stdarg.h>\n#include <setjmp.h>\n#include <stdint.h>\n#define CL_TARGET_OPENCL_VERSION 120\n#include <%s>\n' "$h" |
      cc -E -x c - > /dev/null 2>&1 && have "$h" || lack "$h"
  done
fi
# Runtime libraries: the bundle's first, then the system's.
[ -d build/gpu-libs ] && export LD_LIBRARY_PATH="$ROOT/build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The OpenCL drivers the ICD loader will find. A container often has the
# vendor's library but no .icd file: then point the loader at the library.
icd_dir=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
icds=$(ls "$icd_dir" 2>/dev/null | grep '\.icd$' | tr '\n' ' ' | sed 's/ $//')
if [ -z "$icds" ]; then
  mkdir -p "$OUTDIR/icd"
  for l in libnvidia-opencl.so.1 libamdocl64.so libigdrcl.so; do
    p=$( (ldconfig -p 2>/dev/null | awk -v l="$l" '$1 == l {print $NF; exit}') )
    [ -z "$p" ] && for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/lib; do
      [ -e "$d/$l" ] && { p=$d/$l; break; }
    done
    [ -n "$p" ] && echo "$p" > "$OUTDIR/icd/${l%%.so*}.icd"
  done
  icds=$(ls "$OUTDIR/icd" 2>/dev/null | grep '\.icd$' | tr '\n' ' ' | sed 's/ $//')
  [ -n "$icds" ] && { export OCL_ICD_VENDORS=$OUTDIR/icd; icd_dir="$OUTDIR/icd (made here)"; }
fi
[ -n "$icds" ] && have "icd:$icds" || lack "OpenCL-driver(.icd)"
line="present:${present:- none}; missing:${missing:- none}; drivers in $icd_dir: ${icds:-none}"
say "environment: $line"
part 10-environment "{\"present\": $(jstr "${present# }"), \"missing\": $(jstr "${missing# }"), \"icd_dir\": $(jstr "$icd_dir"), \"drivers\": $(jstr "$icds")}"
phase environment ok 0 $(( $(date +%s) - ts )) 0 "$line"

# ---- build ----------------------------------------------------------------
ts=$(date +%s)
lim=$(limit_for ${GPU_CHECK_T_BUILD:-180})
if [ -x build/vncl ] && ls build/test/test_* > /dev/null 2>&1; then
  how="using the binaries in build/"
  rc=0
elif [ -f build/gpu-check-bundle.tar.xz ]; then
  how="unpacked build/gpu-check-bundle.tar.xz"
  tar -xJf build/gpu-check-bundle.tar.xz > "$LOGS/build.log" 2>&1
  rc=$?
  export LD_LIBRARY_PATH="$ROOT/build/gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  need=""
  for x in cc make CL/cl.h clblast_c.h clFFT.h cjson/cJSON.h cmocka.h cblas.h fftw3.h; do
    case " $missing " in *" $x "*) need="$need $x" ;; esac
  done
  if [ -n "$need" ]; then
    say "build: impossible here, missing:$need; build and run scripts/gpu-check.sh --pack on a machine with the packages (scripts/install-deps.sh), then carry build/gpu-check-bundle.tar.xz"
    phase build failed 5 $(( $(date +%s) - ts )) "$lim" "missing:$need"
    finish "no build" 5
  fi
  how="make -j$(nproc) all tests"
  run_limited "$lim" "$LOGS/build.log" make -j"$(nproc)" all tests
  rc=$?
fi
nf=$(ldd build/vncl build/vncl-bench 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
if [ "$rc" -ne 0 ] || [ ! -x build/vncl ] || [ -n "$nf" ]; then
  say "build: $how failed (rc $rc${nf:+; libraries not found: $nf}); log $LOGS/build.log"
  [ -f "$LOGS/build.log" ] && tail -n 15 "$LOGS/build.log"
  phase build failed "$rc" $(( $(date +%s) - ts )) "$lim" "$how${nf:+; not found: $nf}"
  finish "no build" 5
fi
say "build: $how ($(( $(date +%s) - ts )) s)"
phase build ok 0 $(( $(date +%s) - ts )) "$lim" "$how"

# Caches and the tuning database of this check only: the user's files are
# neither read nor written. The tests and the bench see the built-in
# defaults (and the untuned-device probe, docs/tuning.md).
export VNCL_CACHE_DIR=$ROOT/build/gpu-check-cache
export VNCL_TUNING_DB=$OUTDIR/no-tuning-db.json
rm -f "$VNCL_TUNING_DB"
mkdir -p "$VNCL_CACHE_DIR"

# ---- devices --------------------------------------------------------------
ts=$(date +%s)
lim=$(limit_for ${GPU_CHECK_T_DEVICES:-60})
if command -v clinfo > /dev/null 2>&1; then
  run_limited "$lim" "$LOGS/clinfo.log" cl clinfo -l
  part 20-clinfo "$(jstr "$(cat "$LOGS/clinfo.log")")"
fi
run_limited "$lim" "$OUTDIR/devices.json" cl build/vncl devices --json
rc=$?
run_limited "$lim" "$LOGS/devices.txt" cl build/vncl devices
part 21-devices "$(jfile "$OUTDIR/devices.json")"
if [ "$rc" -ne 0 ]; then
  why=$(grep -o '"error":.*' "$OUTDIR/devices.json" | head -n 1)
  say "devices: no OpenCL driver answers (vncl devices exit $rc${why:+: $why}); drivers: ${icds:-none}"
  phase devices failed "$rc" $(( $(date +%s) - ts )) "$lim" "no OpenCL platform"
  finish "no OpenCL driver" 3
fi
sed 's/^/  /' "$LOGS/devices.txt"
cat "$LOGS/devices.txt" >> "$SUMMARY"
# Which device SEL names (a 16^3 product: quick everywhere), then the
# verified product at a size that means something on the device.
run_limited "$lim" "$OUTDIR/select.json" cl build/vncl info --device "$SEL" --json --size 16
if ! grep -q '"device"' "$OUTDIR/select.json" 2>/dev/null; then
  run_limited 30 "$LOGS/select.log" cl build/vncl info --device "$SEL" --size 16
  say "devices: no device matches '$SEL' ($(head -n 1 "$LOGS/select.log")); the devices found are listed above"
  phase devices failed 4 $(( $(date +%s) - ts )) "$lim" "no device matches $SEL"
  finish "no device matching $SEL" 4
fi
isize=512
[ "$QUICK" = 1 ] && isize=128
[ -n "$WRAP" ] && isize=48
run_limited "$(limit_for ${GPU_CHECK_T_DEVICES:-60})" "$OUTDIR/info.json" cl build/vncl info --device "$SEL" --json --size "$isize"
rc=$?
part 22-info "$(jfile "$OUTDIR/info.json")"
dev=$(grep -m 1 '"name"' "$OUTDIR/select.json" | sed 's/.*"name":[[:space:]]*"\(.*\)",*/\1/')
dtype=$(grep -m 1 '"type"' "$OUTDIR/select.json" | sed 's/.*"type":[[:space:]]*"\(.*\)",*/\1/')
say "device: '$SEL' is $dev ($dtype); vncl info --size $isize: $([ "$rc" = 0 ] && echo verified || echo "FAILED (exit $rc)")"
phase devices "$([ "$rc" = 0 ] && echo ok || echo failed)" "$rc" $(( $(date +%s) - ts )) "$lim" "$dev ($dtype)"
export VNCL_DEVICE=$SEL

# ---- tests ------------------------------------------------------------------
ts=$(date +%s)
plim=$(limit_for ${GPU_CHECK_T_TESTS:-200})
pend=$((ts + plim))
each=${GPU_CHECK_T_TEST:-90}
if [ -z "$TESTS" ]; then
  if [ -n "$WRAP" ]; then
    TESTS="test_status test_tensor test_cli test_gemm_probe"
  else
    TESTS=$(ls build/test/ | grep '^test_' | grep -v '\.log$' | tr '\n' ' ')
  fi
fi
# test_device and test_group are written for two PoCL CPU devices
# (POCL_DEVICES="pthread pthread"): on another device they test nothing
# about it, so they run only when the selected device is PoCL's.
pocl_dev=0
grep -q '"platform":[[:space:]]*"Portable Computing Language"' "$OUTDIR/select.json" && pocl_dev=1
tj="" np_all=0 nf_all=0 nbad=0
for t in $(echo "$TESTS" | tr ',' ' '); do
  bin=build/test/$t
  s=0 st="" np=0 nf=0
  if [ ! -x "$bin" ]; then
    st=missing
  elif { [ "$t" = test_device ] || [ "$t" = test_group ]; } && [ "$pocl_dev" = 0 ]; then
    st="skipped: written for two PoCL devices"
  else
    left=$((pend - $(date +%s)))
    if [ "$left" -lt 5 ]; then
      st="skipped: phase limit reached"
    else
      [ "$left" -gt "$each" ] && left=$each
      t1=$(date +%s)
      run_limited "$left" "$LOGS/$t.log" cl "$bin"
      rc=$?
      s=$(( $(date +%s) - t1 ))
      np=$(grep -o '\[  PASSED  \] [0-9]* test' "$LOGS/$t.log" | awk '{s+=$4} END {print s+0}')
      nf=$(grep -o '\[  FAILED  \] [0-9]* test' "$LOGS/$t.log" | awk '{s+=$4} END {print s+0}')
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then st="timeout after ${left}s"
      elif [ "$rc" != 0 ] && [ "$nf" = 0 ]; then st="crash (exit $rc)"
      elif [ "$nf" != 0 ]; then st=failed
      else st=ok; fi
      # Oclgrind's reports (invalid accesses, races) fail a test that passed.
      if [ -n "$WRAP" ] && grep -q -E '^(Invalid|Read-write|Write-write|Uninitialized|Work-group divergence)' "$LOGS/$t.log"; then
        st="oclgrind reported errors"
      fi
    fi
  fi
  case $st in ok|skipped*) ;; *) nbad=$((nbad + 1)) ;; esac
  np_all=$((np_all + np)) nf_all=$((nf_all + nf))
  printf '  %-22s %-40s %4s passed %3s failed %4ss\n' "$t" "$st" "$np" "$nf" "$s" | tee -a "$SUMMARY"
  [ -n "$tj" ] && tj="$tj, "
  tj="$tj{\"binary\": $(jstr "$t"), \"status\": $(jstr "$st"), \"passed\": $np, \"failed\": $nf, \"seconds\": $s}"
  part 30-tests "[$tj]"
done
say "tests: $np_all passed, $nf_all failed, $nbad binaries not ok ($(( $(date +%s) - ts )) s)"
phase tests "$([ "$nbad" = 0 ] && echo ok || echo failed)" "$nbad" $(( $(date +%s) - ts )) "$plim" "$np_all passed, $nf_all failed"

# ---- bench: GEMM against CLBlast and OpenBLAS, transfers against memcpy -----
# Two runs, each with its own limit and JSON, so a slow suite cannot take
# the figures of the other with it.
bsuites="gemm transfer"
[ -n "$WRAP" ] && bsuites=gemm
bi=40
for suite in $bsuites; do
  ts=$(date +%s)
  if [ "$suite" = gemm ]; then dflt=${GPU_CHECK_T_BENCH_GEMM:-120}; else dflt=${GPU_CHECK_T_BENCH_TRANSFER:-75}; fi
  lim=$(limit_for "$dflt")
  bargs="--suite $suite"
  [ "$QUICK" = 1 ] && bargs="$bargs --quick"
  [ -n "$WRAP" ] && bargs="$bargs --repeats 1 --max-dim 128"
  if [ "$lim" -lt 10 ]; then
    phase "bench $suite" skipped 0 0 "$lim" "budget spent"
    continue
  fi
  # shellcheck disable=SC2086
  run_limited "$lim" "$LOGS/bench-$suite.log" cl build/vncl bench --device "$SEL" $bargs --json "$OUTDIR/bench-$suite.json"
  rc=$?
  part "$bi-bench_$suite" "$(jfile "$OUTDIR/bench-$suite.json")"
  part "$((bi + 1))-bench_${suite}_table" "$(jstr "$(grep -E '^(suite|gemm|transfer|bench:)' "$LOGS/bench-$suite.log")")"
  bi=$((bi + 2))
  grep -E '^(suite|gemm|transfer)' "$LOGS/bench-$suite.log" | sed 's/^/  /' >> "$SUMMARY"
  case $rc in
    0) st=ok ;; 124|137) st=timeout ;; 1) st="failed (a wrong result or a case below its gate)" ;; *) st=failed ;;
  esac
  say "bench $suite: vncl bench $bargs: $st ($(( $(date +%s) - ts )) s; $(grep -E '^bench:' "$LOGS/bench-$suite.log" | sed 's/^bench: //'))"
  phase "bench $suite" "$st" "$rc" $(( $(date +%s) - ts )) "$lim" "vncl bench $bargs"
done

# ---- autotune ---------------------------------------------------------------
ts=$(date +%s)
lim=$(limit_for ${GPU_CHECK_T_AUTOTUNE:-90})
if [ "$lim" -lt 20 ]; then
  phase autotune skipped 0 0 "$lim" "budget spent"
elif [ -n "$WRAP" ]; then
  # Each candidate times products of hundreds per side: minutes apiece on
  # a simulator, so every one would time out.
  say "autotune: skipped under $WRAP (its candidates take minutes each on a simulator)"
  phase autotune skipped 0 0 "$lim" "a simulator"
else
  ab=$((lim * 2 / 3))
  targs="--quick --budget $ab --dtype f32"
  # shellcheck disable=SC2086
  run_limited "$lim" "$LOGS/autotune.log" cl build/vncl autotune --device "$SEL" $targs --out "$OUTDIR/tuning.json"
  rc=$?
  run_limited 60 "$LOGS/autotune-show.log" cl build/vncl autotune --show --device "$SEL" --out "$OUTDIR/tuning.json"
  part 50-autotune "{\"args\": $(jstr "$targs"), \"rc\": $rc, \"database\": $(jfile "$OUTDIR/tuning.json"), \"show\": $(jstr "$(cat "$LOGS/autotune-show.log")"), \"log_tail\": $(jstr "$(tail -n 20 "$LOGS/autotune.log")")}"
  case $rc in 0) st=ok ;; 124|137) st=timeout ;; *) st=failed ;; esac
  say "autotune: $targs: $st ($(( $(date +%s) - ts )) s), database $OUTDIR/tuning.json"
  phase autotune "$st" "$rc" $(( $(date +%s) - ts )) "$lim" "vncl autotune $targs"
fi

if [ "$FAILED" = 0 ]; then finish pass 0; else finish fail 1; fi
