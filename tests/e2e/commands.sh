#!/usr/bin/env bash
# The command skeleton (base/opts.h, base/cli.h), the same in every command:
# the same mistake gets the same one-line message and status 2; --help and
# --version work; a truncated trace gets one warning line in every command
# that reads traces and exit 0, or with --strict an error and exit 1; a
# database written from a truncated trace... (see db checks below).
source "$(dirname "$0")/lib.sh"
readers="trace-info trace-dump trace-objrel trace-objects trace-mempat trace-cache trace-wpp trace-whomp trace-leap trace-deps trace-rds trace-twpp trace-layout trace-values trace-redundancy"
all="$readers trace-db trace-plot trace-synth trace-sequitur trace-dataflow trace-slice"

good=$TMP/good.mrt
"$BIN/trace-synth" --pattern=mixed --accesses=60000 --chunk-bytes=8192 -o "$good"
head -c $(( $(stat -c %s "$good") / 2 )) "$good" > "$TMP/cut.mrt"

# usage CMD EXPECTED-MESSAGE ARGS...: status 2, one line naming the mistake
# and the --help hint, nothing on stdout.
usage() {
  local cmd=$1 want=$2; shift 2
  "$BIN/$cmd" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  check_eq "$cmd $*: status 2" 2 "$rc"
  check "$cmd $*: one line '$cmd: $want (try ...)' (got: $(head -c 200 "$TMP/err"))" \
    grep -qxF "$cmd: $want (try '$cmd --help')" "$TMP/err"
  check_eq "$cmd $*: nothing on stdout" "" "$(cat "$TMP/out")"
}
for cmd in $all; do
  usage $cmd "option '--help' takes no value" --help=1
  usage $cmd "unknown option '--bogus'" --bogus
  usage $cmd "unknown option '-Z'" -Z
  "$BIN/$cmd" --help >"$TMP/out" 2>&1
  check_eq "$cmd --help: status 0" 0 $?
  check "$cmd --help: usage line" grep -q "^Usage: $cmd " "$TMP/out"
  check "$cmd --help: lists --version" grep -q -- "--version" "$TMP/out"
  "$BIN/$cmd" --version >"$TMP/out" 2>&1
  check_eq "$cmd --version: status 0" 0 $?
  check "$cmd --version: names memrec" grep -q "^$cmd (memrec) " "$TMP/out"
done
for cmd in $readers; do
  usage $cmd "option '--quiet' takes no value" --quiet=3 "$good"
  usage $cmd "option '--strict' takes no value" --strict=yes "$good"
  usage $cmd "one trace at most; extra argument '$good'" "$good" "$good"
  "$BIN/$cmd" --help >"$TMP/out"
  check "$cmd --help: offers -q and --strict" \
    bash -c "grep -q -- '-q, --quiet' '$TMP/out' && grep -q -- '--strict' '$TMP/out'"
done
usage trace-objects "option '--db' needs a value" "$good" --db
usage trace-objects "option '--top': 'x' is not a number" --top=x "$good"
usage trace-objects "option '--top': 100001 is not in 0..100000" --top=100001 "$good"
usage trace-objects "option '--group-depth': 0 is not in 1..16" --group-depth 0 "$good"
usage trace-mempat "option '--max-patterns': 0 is not in 1..1000000" --max-patterns=0 "$good"
usage trace-dump "option '--format': unknown format (text or lackey)" --format=xml "$good"
usage trace-objrel "option '--group' needs a value" --group= "$good"
# a unique prefix is the option; an ambiguous one is a mistake
"$BIN/trace-mempat" --sym "$good" >"$TMP/out" 2>&1
check_eq "trace-mempat --sym (prefix of --symbolize): status 0" 0 $?
usage trace-objects "option '--t' is ambiguous" --t=3 "$good"

# Truncated: one warning line in every reader, status 0; --strict: status 1.
for cmd in $readers; do
  "$BIN/$cmd" "$TMP/cut.mrt" >"$TMP/out" 2>"$TMP/err"
  check_eq "$cmd truncated: status 0" 0 $?
  check_eq "$cmd truncated: one line on stderr" 1 "$(wc -l <"$TMP/err")"
  check "$cmd truncated: '$cmd: FILE: warning: truncated: ...'" \
    grep -qE "^$cmd: $TMP/cut.mrt: warning: truncated: " "$TMP/err"
  "$BIN/$cmd" --strict "$TMP/cut.mrt" >"$TMP/out" 2>"$TMP/err"
  check_eq "$cmd --strict truncated: status 1" 1 $?
  check "$cmd --strict truncated: one error line" \
    bash -c "[ \$(wc -l <'$TMP/err') = 1 ] && grep -qE '^$cmd: $TMP/cut.mrt: truncated: ' '$TMP/err'"
  "$BIN/$cmd" --strict "$good" >/dev/null 2>"$TMP/err"
  check_eq "$cmd --strict whole trace: status 0, quiet" "0 " "$? $(cat "$TMP/err")"
done
# --strict leaves a database as it was
"$BIN/trace-objects" -q --db "$TMP/p.db" "$good"
before=$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM objects")
"$BIN/trace-objects" -q --strict --db "$TMP/p.db" "$TMP/cut.mrt" 2>/dev/null
check_eq "--strict on a truncated trace: status 1" 1 $?
check_eq "--strict on a truncated trace: the database as it was" "$before" \
  "$(sqlite3 "$TMP/p.db" "SELECT count(*) FROM objects")"
"$BIN/trace-mempat" -q --strict --db "$TMP/new.db" "$TMP/cut.mrt" 2>/dev/null
check_eq "--strict, new database: status 1" 1 $?
check "--strict, new database: no file left" [ ! -e "$TMP/new.db" ]

# A profile of a truncated trace is marked in the database: runs.complete.
"$BIN/trace-objects" -q --db "$TMP/c.db" "$good"
"$BIN/trace-mempat" -q --db "$TMP/c.db" "$TMP/cut.mrt" >/dev/null 2>&1
check_eq "runs.complete: whole trace 1, truncated 0" "1 0" \
  "$(sqlite3 "$TMP/c.db" "SELECT group_concat(complete, ' ') FROM (SELECT complete FROM runs ORDER BY id)")"
"$BIN/trace-db" "$TMP/c.db" runs --tsv > "$TMP/runs"
check_eq "trace-db runs shows complete yes/no" "yes no" \
  "$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "complete") c = i; next } { printf "%s%s", (NR > 2 ? " " : ""), $c }' "$TMP/runs")"
"$BIN/trace-objects" "$TMP/cut.mrt" 2>/dev/null > "$TMP/report"
check "the objects report says the trace is truncated" grep -q "the trace is truncated" "$TMP/report"
