#!/usr/bin/env bash
# Runs every test and ends with one summary line, "N passed, N failed".
#   tests/unit/test_*.c  cmocka programs (built with ASan+UBSan), TAP output
#   tests/e2e/*.sh       shell tests speaking TAP through tests/e2e/lib.sh
# Each "ok"/"not ok" line is one test. A program that crashes, or exits non-zero
# without reporting a failure, counts as one failed test.
# Usage: tests/run.sh [PATTERN]   (runs only tests whose file name matches)
set -u
cd "$(dirname "$0")/.."
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export MEMREC_ROOT=$PWD
export MEMREC_BUILD=${MEMREC_BUILD:-build}
case $MEMREC_BUILD in /*) ;; *) MEMREC_BUILD=$PWD/$MEMREC_BUILD;; esac
export MEMREC_BIN=${MEMREC_BIN:-$MEMREC_BUILD/asan/bin}
pattern=${1:-}
passed=0 failed=0
failures=()

run_one() {  # name, command...
  local name=$1; shift
  local out rc p f
  out=$("$@" 2>&1); rc=$?
  p=$(grep -cE '^ok ' <<<"$out"); f=$(grep -cE '^not ok ' <<<"$out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -ne 0 ]; then
    failures+=("$name")
    printf '%s\n' "$out" | grep -vE '^ok ' | sed "s|^|  $name: |" | tail -n 40
  fi
  printf '%-40s %4d passed %4d failed\n' "$name" "$p" "$f"
}

for t in "$MEMREC_BUILD"/asan/tests/test_*; do
  [ -x "$t" ] || continue
  [[ -z "$pattern" || "$t" == *$pattern* ]] || continue
  run_one "$(basename "$t")" "$t"
done
for t in tests/e2e/*.sh; do
  [ -e "$t" ] || continue
  [[ "$(basename "$t")" == lib.sh ]] && continue
  [[ -z "$pattern" || "$t" == *$pattern* ]] || continue
  run_one "$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -eq 0 ] || echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
