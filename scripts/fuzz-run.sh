#!/bin/sh
# make fuzz: runs the libFuzzer targets already built in FUZZ_B, each for
# SECONDS on a working copy of its seed corpus (test/fuzz/corpus/NAME/),
# as many at a time as there are CPUs (FUZZ_JOBS): each fuzzer uses one
# thread, so two targets side by side on two cores get the same time each
# as one after the other, in half the wall time. Fails when a target
# fails (its log's last 40 lines are printed).
#
#   sh scripts/fuzz-run.sh FUZZ_B SECONDS TARGET...
set -u
if [ "${1:-}" = --one ]; then
  b=$2 secs=$3 t=$4
  c=$b/corpus/${t#fuzz_}
  mkdir -p "$c"
  cp test/fuzz/corpus/"${t#fuzz_}"/* "$c"/ 2>/dev/null || true
  if "$b/$t" -max_total_time="$secs" -print_final_stats=1 "$c" \
      > "$b/$t.log" 2>&1; then
    echo ok > "$b/$t.status"
  else
    echo fail > "$b/$t.status"
  fi
  exit 0
fi
b=$1 secs=$2
shift 2
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
for t in "$@"; do rm -f "$b/$t.status"; done
echo "fuzz: $* for $secs s each, $jobs at a time"
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh "$0" --one "$b" "$secs" {}
rc=0
for t in "$@"; do
  if [ "$(cat "$b/$t.status" 2>/dev/null)" = ok ]; then
    echo "fuzz: $t"
    grep -E "^(Done|stat::number_of_executed_units)" "$b/$t.log"
  else
    echo "fuzz: $t FAILED"
    tail -n 40 "$b/$t.log" 2>/dev/null
    rc=1
  fi
done
exit $rc
