#!/usr/bin/env bash
# trace-cache on synthetic traces (trace-synth): the pieces agree with each
# other and bad input gets one-line errors.
#   * a fully associative D1 of C lines misses exactly as often as the exact
#     miss-ratio curve says at C lines (two algorithms, one answer);
#   * --per-access prints one line per data access, and its latencies add up
#     to the groups' latency in the database;
#   * per-level rows follow the preset; per-instruction and per-group rows
#     account for every access;
#   * bad geometry, a bad rate, an impossible Cachegrind hierarchy and a
#     missing trace fail with one line and the documented status.
source "$(dirname "$0")/lib.sh"

skip() { echo "ok 1 # SKIP $*"; exit 0; }
[ -x "$BIN/trace-cache" ] || skip "$BIN/trace-cache not built"
[ -x "$BIN/trace-synth" ] || skip "$BIN/trace-synth not built"
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"

t=$TMP/mixed.trace db=$TMP/c.db
"$BIN/trace-synth" --pattern=mixed --accesses=60000 -o "$t"
check_eq "synthetic trace written" 0 $?

# 64-line fully associative D1 (one set of 64 ways) against the curve.
"$BIN/trace-cache" -q --D1=4096,64,64 --db "$db" "$t" >"$TMP/out" 2>"$TMP/err"
check_eq "exit status" 0 $?
check_eq "nothing on stderr" "" "$(cat "$TMP/err")"
check_eq "lwptool levels" "I1 D1 L2 L3" \
  "$(sqlite3 "$db" "SELECT group_concat(level, ' ') FROM (SELECT level FROM cache_summary ORDER BY position)")"
read -r d1_acc d1_miss < <(sqlite3 -separator ' ' "$db" "SELECT accesses, misses FROM cache_summary WHERE level = 'D1'")
check_eq "D1 sees every data access" 60000 "$d1_acc"
curve=$(sqlite3 "$db" "SELECT CAST(round(miss_ratio * accesses) AS INTEGER) FROM cache_curves
                       WHERE scope = 'run' AND lines = 64")
check_eq "fully associative D1 misses = exact curve at 64 lines" "$d1_miss" "$curve"
check_eq "instructions account for every access" 60000 \
  "$(sqlite3 "$db" "SELECT sum(accesses) FROM cache_instructions")"
check_eq "groups account for every access" 60000 \
  "$(sqlite3 "$db" "SELECT sum(accesses) FROM cache_groups")"
check_eq "groups' D1 misses add up to D1's" "$d1_miss" \
  "$(sqlite3 "$db" "SELECT sum(l1_misses) FROM cache_groups")"
check "the report names the worst instructions" grep -q '^Worst instructions by latency' "$TMP/out"

# --per-access: one line per access, the same latencies.
"$BIN/trace-cache" -q --D1=4096,64,64 --per-access "$t" >"$TMP/pa"
check_eq "per-access: one line per data access" 60001 "$(wc -l <"$TMP/pa")"
check_eq "per-access latencies add up to the groups'" \
  "$(sqlite3 "$db" "SELECT sum(latency) FROM cache_groups")" \
  "$(awk -F'\t' 'NR > 1 { s += $8 } END { print s }' "$TMP/pa")"

# SHARDS: a sampled run stores a sampled curve.
"$BIN/trace-cache" -q --sample=0.5 --db "$db" "$t" >/dev/null
check_eq "sampled curve stored at its rate" 0.5 \
  "$(sqlite3 "$db" "SELECT DISTINCT rate FROM cache_curves WHERE scope = 'run'")"

# Fields: offsets from --field-limit on share one row, so a large array
# makes a bounded number of rows; every heap/static access is in one.
sqlite3 "$db" "DELETE FROM cache_fields"
"$BIN/trace-cache" -q --db "$db" "$t" >/dev/null
read -r nf maxoff facc < <(sqlite3 -separator ' ' "$db" \
  "SELECT count(*), max(offset), sum(accesses) FROM cache_fields WHERE run = (SELECT max(id) FROM runs)")
check_eq "fields: no offset above the default limit" 4096 "$maxoff"
"$BIN/trace-cache" -q --field-limit=0 --db "$db" "$t" >/dev/null
read -r nf0 maxoff0 facc0 < <(sqlite3 -separator ' ' "$db" \
  "SELECT count(*), max(offset), sum(accesses) FROM cache_fields WHERE run = (SELECT max(id) FROM runs)")
check "fields: --field-limit=0 keeps every offset" test "$maxoff0" -gt 4096 -a "$nf0" -gt "$nf"
check_eq "fields: the limit folds rows, not accesses" "$facc0" "$facc"
bad_limit=$("$BIN/trace-cache" -q --field-limit=x "$t" 2>&1 >/dev/null; echo "rc=$?")
check "fields: a bad limit is a usage error" grep -q "field-limit.*rc=2" <<<"$(tr '\n' ' ' <<<"$bad_limit")"

# Bad input: one line, status 2 for usage, 1 for a missing trace.
bad() {  # what, expected status, expected text, arguments...
  local what=$1 status=$2 text=$3; shift 3
  "$BIN/trace-cache" "$@" >/dev/null 2>"$TMP/err"
  local rc=$?
  check_eq "$what: status" "$status" "$rc"
  check_eq "$what: one line" 1 "$(wc -l <"$TMP/err")"
  check "$what: says '$text'" grep -q -- "$text" "$TMP/err"
}
bad "line not a power of two" 2 "line size 48 is not a power of two" --D1=32768,8,48 "$t"
bad "associativity above the lines" 2 "larger than the 4 lines" --D1=256,8,64 "$t"
bad "sets not a power of two" 2 "set count 3" --L2=393216,2,64 "$t"
bad "unknown preset" 2 "unknown preset" --preset=nosuch "$t"
bad "bad sample rate" 2 "not a rate" --sample=0 "$t"
bad "Cachegrind with an L2" 2 "exactly I1, D1 and LL" --cachegrind --L2=262144,8,64 "$t"
bad "missing trace" 1 "trace-cache: $TMP/nope" "$TMP/nope"
echo "1..$_n"
