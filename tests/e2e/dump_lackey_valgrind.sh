#!/usr/bin/env bash
# trace-dump --format=lackey against Valgrind's Lackey itself: the samples
# run once under memrec and once under `valgrind --tool=lackey
# --trace-mem=yes`, and the two outputs must agree line for line over the
# program's own code (every "I" line whose address is in the sample's text,
# each followed by its data accesses' kinds and sizes). Data addresses are
# left out because they legitimately differ: memrec's options change the
# environment, which moves the stack. tests/e2e/recorder_lackey.sh compares
# whole programs, the C library included, in one environment.
source "$(dirname "$0")/lib.sh"

# own_code LO HI < LACKEY-LINES: the I lines with LO <= address < HI (16-digit
# hex, compared as strings so that any awk will do) and "K,size" for theirs.
own_code() {
  awk -v lo="$1" -v hi="$2" '
    /^I  / { split(substr($0, 4), f, ","); a = f[1]
             while (length(a) < 16) a = "0" a
             keep = (a >= lo && a < hi); if (keep) print; next }
    /^ [LSM] / { if (keep) { split(substr($0, 4), f, ","); print substr($0, 2, 1) "," f[2] } }'
}

# Each sample with small arguments: Lackey prints every instruction.
for run in "linked_list 300 1" "binary_tree 1500"; do
  read -r s args <<<"$run"
  prog=$SAMPLES/$s
  record "$TMP/$s.trace" "$prog" $args >/dev/null 2>"$TMP/$s.err"
  check_eq "$s: recorded" 0 $?
  valgrind --tool=lackey --trace-mem=yes --vex-guest-chase=no \
    --log-file="$TMP/$s.lackey" "$prog" $args >/dev/null 2>&1
  check_eq "$s: Lackey ran" 0 $?
  valgrind --tool=lackey --trace-mem=yes --log-file="$TMP/$s.chase" "$prog" $args >/dev/null 2>&1
  check_eq "$s: Lackey ran with chasing" 0 $?
  # The sample's text range, from the trace's module record.
  read -r lo size < <("$BIN/trace-dump" "$TMP/$s.trace" |
    sed -n "s|^[0-9]* t[0-9]* module [0-9]* \"$prog\" text=0x\([0-9a-f]*\)+0x\([0-9a-f]*\) .*|\1 \2|p")
  check "$s: module record of the program" [ -n "${lo:-}" ]
  lo16=$(printf '%016x' $((0x${lo:-0})))
  hi16=$(printf '%016x' $((0x${lo:-0} + 0x${size:-0})))
  own_code "$lo16" "$hi16" <"$TMP/$s.lackey" >"$TMP/$s.want"
  "$BIN/trace-dump" --format=lackey "$TMP/$s.trace" | own_code "$lo16" "$hi16" >"$TMP/$s.got"
  n=$(grep -c '^I' "$TMP/$s.want")
  check "$s: Lackey ran the program's code ($n instructions)" [ "$n" -gt 10000 ]
  check "$s: same instructions and accesses as Lackey" cmp -s "$TMP/$s.want" "$TMP/$s.got"
  diff "$TMP/$s.want" "$TMP/$s.got" | head -n 5 | sed 's/^/# /'
  own_code "$lo16" "$hi16" <"$TMP/$s.chase" >"$TMP/$s.chase.want"
  check_eq "$s: with chasing, Lackey only adds instructions" 0 \
    "$(diff "$TMP/$s.chase.want" "$TMP/$s.got" | grep -cvE '^([0-9,]+d[0-9]+|< I  [0-9a-f]+,[0-9]+)$')"
done
