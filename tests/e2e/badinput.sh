#!/usr/bin/env bash
# Bad input for trace-info and trace-dump: every unreadable input gets
# exactly one line "trace-NAME: FILE: what is wrong" on stderr and exit
# status 1; a truncated trace is summarised/dumped up to the cut with one
# warning line and status 0; bad usage exits 2; nothing crashes (these are
# the ASan+UBSan builds: a sanitizer report changes the status and adds
# lines).
source "$(dirname "$0")/lib.sh"
# jqtest FILTER FILE...: succeeds when the filter is true (no output).
jqtest() { jq -e "$@" >/dev/null; }

good=$TMP/good.trace
"$BIN/trace-synth" --pattern=mixed --accesses=60000 --chunk-bytes=8192 -o "$good"
size=$(stat -c %s "$good")

# u32 FILE OFFSET: the little-endian 32-bit number at OFFSET.
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
# flip FILE OFFSET COUNT: inverts COUNT bytes in place.
flip() {
  local f=$1 off=$2 n=$3 b i
  for ((i = 0; i < n; i++)); do
    b=$(od -An -tu1 -j $((off + i)) -N1 "$f" | tr -d ' ')
    printf "\\$(printf '%03o' $((b ^ 0xff)))" |
      dd of="$f" bs=1 seek=$((off + i)) conv=notrunc status=none
  done
}
# Chunk framing (format/SPEC.md): a 20-byte file header (magic 8, major
# version u16 at 8, minor u16 at 10, flags u32, CRC-32 of bytes 0-15), then
# chunks: a frame header ("MRCK", kind, flags, raw size u32 at 8, compressed
# size u32 at 12, ..., its CRC) and the compressed data. The frame header's
# length is found from the file (the second tag follows the first chunk),
# so that a longer frame in a later format version does not break the test.
# chunks FILE prints "OFFSET FRAME-LENGTH COMPRESSED-SIZE" per chunk.
tag_at() { [ "$(dd if="$1" bs=1 skip="$2" count=4 status=none)" = MRCK ]; }
chunks() {
  local f=$1 off=20 n len comp
  n=$(stat -c %s "$f")
  comp=$(u32 "$f" 32)
  for len in $(seq 24 4 128) ""; do tag_at "$f" $((20 + len + comp)) && break; done
  [ -n "$len" ] || return 0
  while [ $((off + len)) -le "$n" ] && tag_at "$f" $off; do
    comp=$(u32 "$f" $((off + 12)))
    echo "$off $len $comp"
    off=$((off + len + comp))
  done
}

mapfile -t frames < <(chunks "$good")
check "the good trace has several chunks (${#frames[@]})" [ ${#frames[@]} -ge 4 ]

# Inputs that must fail with one line and status 1.
: >"$TMP/empty.trace"
cp "$good" "$TMP/corrupt.trace"          # bytes inverted inside a chunk's data
read -r off len comp <<<"${frames[$(( ${#frames[@]} / 2 ))]}"
flip "$TMP/corrupt.trace" $((off + len + comp / 2)) 8
cp "$good" "$TMP/badframe.trace"         # a chunk frame header damaged
read -r off len comp <<<"${frames[1]}"
flip "$TMP/badframe.trace" $((off + 20)) 2
cp "$good" "$TMP/badheader.trace"        # the file header's checksum fails
flip "$TMP/badheader.trace" 12 1
# Version 4 (newer than this reader) with a correct header checksum: only
# the version is wrong. The CRC-32 is gzip's (its trailer holds the CRC-32 of
# the data, little-endian).
{ head -c 8 "$good"; printf '\004\000'; dd if="$good" bs=1 skip=10 count=6 status=none; } >"$TMP/v4.head"
{ cat "$TMP/v4.head"; gzip -c <"$TMP/v4.head" | tail -c 8 | head -c 4; tail -c +21 "$good"; } >"$TMP/version.trace"
head -c 10 "$good" >"$TMP/header-cut.trace"   # not even a whole file header
mkdir "$TMP/dir.trace"

for cmd in trace-info trace-dump; do
  for f in missing.trace empty.trace corrupt.trace badframe.trace badheader.trace \
           version.trace header-cut.trace dir.trace /etc/passwd; do
    case $f in /*) path=$f ;; *) path=$TMP/$f ;; esac
    "$BIN/$cmd" "$path" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    check_eq "$cmd $(basename "$f"): status 1" 1 "$rc"
    check_eq "$cmd $(basename "$f"): one line on stderr" 1 "$(wc -l <"$TMP/err")"
    check "$cmd $(basename "$f"): 'prog: file: reason' ($(head -c 200 "$TMP/err"))" \
      grep -qE "^$cmd: $path: [^ ].{3,}" "$TMP/err"
  done
  # The same from a pipe names <stdin>.
  "$BIN/$cmd" - <"$TMP/corrupt.trace" >/dev/null 2>"$TMP/err"
  check_eq "$cmd corrupt from a pipe: status 1" 1 $?
  check "$cmd corrupt from a pipe: names <stdin>" grep -qE "^$cmd: <stdin>: " "$TMP/err"
  "$BIN/$cmd" </etc/passwd >/dev/null 2>"$TMP/err"
  check_eq "$cmd non-trace on stdin: status 1" 1 $?
  check_eq "$cmd non-trace on stdin: one line" 1 "$(wc -l <"$TMP/err")"
done
check "the version error says version" grep -qi version <(
  "$BIN/trace-info" "$TMP/version.trace" 2>&1)

# Truncated: the events before the cut, one warning line, status 0.
head -c $((size / 2)) "$good" >"$TMP/cut.trace"
"$BIN/trace-info" --json "$TMP/cut.trace" >"$TMP/out" 2>"$TMP/err"
check_eq "trace-info truncated: status 0" 0 $?
check_eq "trace-info truncated: one line on stderr" 1 "$(wc -l <"$TMP/err")"
check "trace-info truncated: a warning naming the file" \
  grep -qE "^trace-info: $TMP/cut.trace: warning: " "$TMP/err"
check_eq "trace-info truncated: truncated is true" true "$(jq .truncated "$TMP/out")"
check_eq "trace-info truncated: no end record" null "$(jq .end_reason "$TMP/out")"
"$BIN/trace-info" --json "$good" >"$TMP/full.json"
check "trace-info truncated: some instructions, fewer than the whole" \
  jqtest --slurpfile full "$TMP/full.json" \
  '.instructions > 0 and .instructions < $full[0].instructions' "$TMP/out"
"$BIN/trace-info" "$TMP/cut.trace" 2>/dev/null >"$TMP/out"
check "trace-info truncated, text: says so" grep -qE '^complete: +no, truncated' "$TMP/out"
"$BIN/trace-dump" "$TMP/cut.trace" >"$TMP/out" 2>"$TMP/err"
check_eq "trace-dump truncated: status 0" 0 $?
check_eq "trace-dump truncated: one line on stderr" 1 "$(wc -l <"$TMP/err")"
check "trace-dump truncated: a warning" grep -qE "^trace-dump: $TMP/cut.trace: warning: " "$TMP/err"
check "trace-dump truncated: the events before the cut" grep -qE '^[0-9]+ t[0-9]+ exec ' "$TMP/out"
cat "$TMP/cut.trace" | "$BIN/trace-dump" --format=lackey >"$TMP/out" 2>"$TMP/err"
check_eq "trace-dump truncated from a pipe: status 0" 0 $?
check "trace-dump truncated from a pipe: a warning naming <stdin>" \
  grep -qE "^trace-dump: <stdin>: warning: " "$TMP/err"
check "trace-dump truncated from a pipe: accesses before the cut" grep -q '^ L ' "$TMP/out"

# A damaged chunk after a window does not spoil a windowed dump (trace-dump
# searches the index for the window's first chunk; a probe that meets the
# damage falls back to reading from the start, which stops at the window's
# end, before the damage).
"$BIN/trace-dump" --format=lackey --from=1000 --to=2000 "$good" >"$TMP/want"
"$BIN/trace-dump" --format=lackey --from=1000 --to=2000 "$TMP/corrupt.trace" >"$TMP/out" 2>"$TMP/err"
check_eq "window before a damaged chunk: status 0" 0 $?
check_eq "window before a damaged chunk: quiet" "" "$(cat "$TMP/err")"
check_eq "window before a damaged chunk: 1000 instructions" 1000 "$(grep -c '^I  ' "$TMP/out")"
check "window before a damaged chunk: same lines" cmp -s "$TMP/want" "$TMP/out"
"$BIN/trace-dump" --from=$((size)) "$TMP/corrupt.trace" >/dev/null 2>"$TMP/err"
check_eq "window after a damaged chunk: status 1" 1 $?
check_eq "window after a damaged chunk: one line" 1 "$(wc -l <"$TMP/err")"

# Usage: status 2 with one line, a message and a hint; --help and --version: 0.
for cmd in trace-info trace-dump; do
  for args in "--bogus" "-z" "$good $good" "--json=1"; do
    [ "$cmd" = trace-dump ] && [ "$args" = "--json=1" ] && args="--format"
    "$BIN/$cmd" $args >"$TMP/out" 2>"$TMP/err"
    check_eq "$cmd $args: status 2" 2 $?
    check_eq "$cmd $args: one line" 1 "$(wc -l <"$TMP/err")"
    check "$cmd $args: says what and where to look" grep -q "^$cmd: .*(try '$cmd --help')\$" "$TMP/err"
    check_eq "$cmd $args: nothing on stdout" "" "$(cat "$TMP/out")"
  done
  "$BIN/$cmd" --help >"$TMP/out" 2>&1
  check_eq "$cmd --help: status 0" 0 $?
  check "$cmd --help: usage" grep -q "^Usage: $cmd " "$TMP/out"
  "$BIN/$cmd" --version >"$TMP/out" 2>&1
  check_eq "$cmd --version: status 0" 0 $?
  check "$cmd --version: names memrec" grep -q "^$cmd (memrec) " "$TMP/out"
done
# No trace named with a terminal on stdin: a usage error, not a wait.
# script(1) gives the command a terminal; the timeout catches a hang.
for cmd in trace-info trace-dump; do
  out=$(timeout 20 script -qec "$BIN/$cmd" /dev/null </dev/null 2>&1)
  check_eq "$cmd with a terminal on stdin: status 2" 2 $?
  check "$cmd with a terminal on stdin: says so" grep -q "no trace given" <<<"$out"
done
for args in --format=xml --thread=x --thread=-1 --from=1e3 --to= --function= \
            --thread=4294967296; do
  "$BIN/trace-dump" "$args" "$good" >/dev/null 2>"$TMP/err"
  check_eq "trace-dump $args: status 2" 2 $?
done
