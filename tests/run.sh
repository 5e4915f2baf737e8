#!/usr/bin/env bash
# Runs every test and ends with one summary line, "N passed, N failed, N skipped".
#   tests/unit/test_*.c  cmocka programs (built with ASan+UBSan), TAP output
#   tests/e2e/*.sh       shell tests speaking TAP through tests/e2e/lib.sh
# Each "ok"/"not ok" line is one test; a line with TAP's skip directive,
# "ok N - what # SKIP why" (or cmocka's "not ok N # SKIP name"), is a skip,
# never a pass nor a failure, and the skipped tests are listed by name. A program that crashes, or
# exits non-zero without reporting a failure, counts as one failed test. The
# run fails when a test failed or when nothing passed at all.
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
passed=0 failed=0 skipped=0
failures=() skips=()
# TAP's skip directive: a test line, then "# SKIP" (any case) and a reason.
skip_re='^(not )?ok .*#[[:space:]]*[Ss][Kk][Ii][Pp]'

run_one() {  # name, command...
  local name=$1; shift
  local out rc p f s line
  out=$("$@" 2>&1); rc=$?
  s=$(grep -cE "$skip_re" <<<"$out")
  p=$(grep -E '^ok ' <<<"$out" | grep -cvE "$skip_re")
  f=$(grep -E '^not ok ' <<<"$out" | grep -cvE "$skip_re")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  while IFS= read -r line; do
    [ -n "$line" ] && skips+=("$name: $line")
  done < <(grep -E "$skip_re" <<<"$out")
  if [ "$f" -ne 0 ]; then
    failures+=("$name")
    printf '%s\n' "$out" | grep -vE '^ok ' | sed "s|^|  $name: |" | tail -n 40
  fi
  printf '%-40s %4d passed %4d failed %4d skipped\n' "$name" "$p" "$f" "$s"
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

if [ ${#skips[@]} -ne 0 ]; then
  echo "skipped:"
  printf '  %s\n' "${skips[@]}"
fi
[ ${#failures[@]} -eq 0 ] || echo "failing: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
