#!/usr/bin/env bash
# Format compatibility (format/SPEC.md 10): a trace written by the version 2
# library (tests/data/v2-mixed.mrt, kept as it was written) reads the same
# as the same synthetic trace written now, event for event; the new trace is
# version 3 and packs its random address deltas.
source "$(dirname "$0")/lib.sh"

old=$ROOT/tests/data/v2-mixed.mrt
new=$TMP/v3-mixed.mrt
# The exact command that wrote the stored trace.
"$BIN/trace-synth" --pattern=mixed --accesses=30000 --seed=7 --chunk-bytes=16384 -o "$new"
version() { od -An -tu2 -j8 -N2 "$1" | tr -d ' '; }
check_eq "the stored trace is version 2" 2 "$(version "$old")"
check_eq "a trace written now is version 3" 3 "$(version "$new")"

"$BIN/trace-dump" "$old" >"$TMP/old.txt" 2>"$TMP/old.err"
check_eq "version 2: trace-dump exits 0" 0 $?
check_eq "version 2: nothing on stderr" "" "$(cat "$TMP/old.err")"
"$BIN/trace-dump" "$new" >"$TMP/new.txt"
check "version 2 and 3 dump the same events" cmp -s "$TMP/old.txt" "$TMP/new.txt"
check "the dump is not empty" test "$(wc -l <"$TMP/new.txt")" -gt 60000
check_eq "version 2: end totals match" true "$("$BIN/trace-info" --json "$old" | jq .totals_match)"
# The mixed pattern's random phases: their deltas pack smaller than varints.
check "version 3 is smaller than version 2" test "$(stat -c %s "$new")" -lt "$(stat -c %s "$old")"
