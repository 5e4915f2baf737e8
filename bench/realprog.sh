#!/usr/bin/env bash
# Recording real programs (issue 13): programs from Debian packages, each
# about 0.1-0.5 s natively, run natively, under valgrind --tool=none, memrec,
# DHAT and Cachegrind without cache simulation, side by side: the tools take
# turns within each round, so a busy machine slows them alike. Per program:
# median wall seconds, median total CPU seconds (user + system of the
# process and every child it reaped: memrec's encoder included), the ratios to
# --tool=none, the trace's size and bytes per access. Targets, each PASS or
# FAIL (the script fails only when a run fails):
#   memrec/none wall: median over the programs <= 2.5, none above 4
#   memrec faster than DHAT (wall) on every program
#   instructions, loads and stores within 0.1% of Lackey's
#   (--detailed-counts=yes --vex-guest-chase=no, run once per program)
# RUNS rounds (default 3) after one warm-up; PROGS="gzip xz" picks programs.
set -u
. "$(dirname "$0")/lib/bench.sh"
bench_init realprog
[ -x "$VALGRIND_LIB/memrec-amd64-linux" ] || die "$VALGRIND_LIB/memrec-amd64-linux is missing (make all first)"
[ -x "$BUILD/bin/trace-info" ] || die "$BUILD/bin/trace-info is missing (make all first)"
for c in gzip bzip2 xz sqlite3 /usr/bin/python3 perl jq; do
  command -v "$c" >/dev/null || die "$c is missing (make deps)"
done

# ---- inputs: the same bytes on every Debian machine with the build deps --
# Text: the first 4 MB of the C headers in /usr/include (libc6-dev), sorted.
find /usr/include -type f -name '*.h' | LC_ALL=C sort | xargs cat 2>/dev/null |
  head -c 4000000 > "$TMP/text4m"
head -c 1500000 "$TMP/text4m" > "$TMP/text1m"
[ "$(stat -c %s "$TMP/text4m")" -eq 4000000 ] || die "/usr/include holds less than 4 MB of headers"
sqlite_rows_script 100000 "$TMP/rows.sql"
cat > "$TMP/words.py" <<'EOF'
# A dictionary of 50 K strings counted, then sorted: allocation-heavy.
words = {}
for i in range(400000):
    w = "w%d" % ((i * 2654435761) % 50021)
    words[w] = words.get(w, 0) + 1
top = sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
print(len(words), top)
EOF
cat > "$TMP/words.pl" <<'EOF'
# Every word of the text counted in a hash.
my %c;
while (<>) { $c{$1}++ while /(\w+)/g; }
printf "%d words\n", scalar keys %c;
EOF

# name|command line (no shell: words split on blanks)
PROGRAMS="gzip|gzip -9 -c $TMP/text4m
bzip2|bzip2 -9 -c $TMP/text4m
xz|xz -T2 --block-size=524288 -c $TMP/text1m
sqlite3|sqlite3 -batch -init $TMP/rows.sql :memory: .quit
python3|/usr/bin/python3 $TMP/words.py
perl|perl $TMP/words.pl $TMP/text4m"
SELECTED=${PROGS:-gzip bzip2 xz sqlite3 python3 perl}

# Python and Perl randomise their hashes per run: fixed seeds make every
# run, and so the traces' sizes, the same.
export PYTHONHASHSEED=0 PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0
TOOLS="native none memrec dhat cachegrind"
# prefix TOOL NAME: the words put before the program's command line.
prefix() {
  case $1 in
    native) ;;
    none) echo "valgrind --tool=none -q" ;;
    memrec) echo "valgrind --tool=memrec -q --memrec-out-file=$TMP/$2.trace" ;;
    dhat) echo "valgrind --tool=dhat -q --dhat-out-file=/dev/null" ;;
    cachegrind) echo "valgrind --tool=cachegrind -q --cache-sim=no --cachegrind-out-file=/dev/null" ;;
  esac
}

# run TOOL NAME CMD: one run, appends "wall cpu" to $TMP/NAME.TOOL.
run() {
  local tool=$1 name=$2 cmd=$3 t
  # shellcheck disable=SC2046  # the prefix and the command are word lists
  t=$( { TIMEFORMAT='%3R %3U %3S'; time $(prefix "$tool" "$name") $cmd </dev/null >/dev/null 2>"$TMP/err"; } 2>&1 ) ||
    { cat "$TMP/err" >&2; die "$name under $tool failed"; }
  echo "$t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' >> "$TMP/$name.$tool"
}
# column_median FILE COLUMN (an even count: the mean of the middle two)
column_median() {
  cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# counts NAME TRACE-INFO-JSON: Lackey's instruction, load and store counts
# of the program (one run, without guest chasing, as memrec runs) against
# the recording's: the program's own allocator runs under both, so they
# agree but for dirty helpers' accesses (Lackey skips them) and, for
# threaded programs, the interleaving.
counts() {
  local name=$1 json=$2 cmd li ll ls
  cmd=$(awk -F'|' -v n="$name" '$1 == n { print $2 }' <<< "$PROGRAMS")
  # shellcheck disable=SC2086  # the command is a word list
  valgrind --tool=lackey --detailed-counts=yes --vex-guest-chase=no --log-file="$TMP/lackey" \
    $cmd </dev/null >/dev/null 2>&1 || die "$name under Lackey failed"
  li=$(sed -n 's/.*guest instrs: *\([0-9,]*\).*/\1/p' "$TMP/lackey" | tr -d ,)
  read -r ll ls < <(awk '/Type +Loads/ { f = 1; next }
    f && /^==[0-9]+== +[A-Z][0-9A-Z]* / { a = $3; b = $4; gsub(/,/, "", a); gsub(/,/, "", b); l += a; s += b }
    END { print l + 0, s + 0 }' "$TMP/lackey")
  awk -v n="$name" -v li="$li" -v ll="$ll" -v ls="$ls" -v mi="$(jq .instructions <<< "$json")" \
      -v ml="$(jq .loads <<< "$json")" -v ms="$(jq .stores <<< "$json")" 'BEGIN {
    d = 0
    split("instructions loads stores", k, " "); split(li " " ll " " ls, l, " "); split(mi " " ml " " ms, m, " ")
    for (i = 1; i <= 3; i++) {
      r = l[i] ? 100 * (m[i] - l[i]) / l[i] : 100
      if (r < 0) r = -r
      if (r > d) d = r
      printf "%s%s %.0f vs Lackey %.0f", (i > 1 ? ", " : "         counts: "), k[i], m[i], l[i]
    }
    printf "\nTARGET %s counts within 0.1%% of Lackey: %.4f%% %s\n", n, d, d <= 0.1 ? "PASS" : "FAIL" }'
}

echo "real-program benchmark: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs each (medians)"
for round in $(seq 0 "$RUNS"); do
  while IFS='|' read -r name cmd; do
    case " $SELECTED " in *" $name "*) ;; *) continue;; esac
    for tool in $TOOLS; do
      run "$tool" "$name" "$cmd"
    done
    # The first round warms the caches up and is not counted.
    [ "$round" -eq 0 ] && for tool in $TOOLS; do rm -f "$TMP/$name.$tool"; done
  done <<< "$PROGRAMS"
done

printf '%-8s %7s %7s %7s %7s %7s | %6s %6s %6s | %8s %6s %9s\n' program native none memrec dhat cg \
  "mr/none" "dh/none" "cg/none" "trace MB" "B/acc" "mr CPU/none"
ratios=""
fail=0
for name in $SELECTED; do
  [ -s "$TMP/$name.none" ] || continue
  declare -A wall cpu
  for tool in $TOOLS; do
    wall[$tool]=$(column_median "$TMP/$name.$tool" 1)
    cpu[$tool]=$(column_median "$TMP/$name.$tool" 2)
  done
  json=$("$BUILD/bin/trace-info" --json "$TMP/$name.trace") || die "$name: trace-info failed"
  bpa=$(jq -r .bytes_per_access <<< "$json")
  mb=$(awk "BEGIN { printf \"%.1f\", $(stat -c %s "$TMP/$name.trace") / 1e6 }")
  r=$(ratio "${wall[memrec]}" "${wall[none]}")
  ratios="$ratios $r"
  printf '%-8s %7.3f %7.2f %7.2f %7.2f %7.2f | %6s %6s %6s | %8s %6s %9s\n' "$name" \
    "${wall[native]}" "${wall[none]}" "${wall[memrec]}" "${wall[dhat]}" "${wall[cachegrind]}" \
    "$r" "$(ratio "${wall[dhat]}" "${wall[none]}")" "$(ratio "${wall[cachegrind]}" "${wall[none]}")" \
    "$mb" "$bpa" "$(ratio "${cpu[memrec]}" "${cpu[none]}")"
  echo "         CPU s: native ${cpu[native]}  none ${cpu[none]}  memrec ${cpu[memrec]} (encoder included)  dhat ${cpu[dhat]}  cachegrind ${cpu[cachegrind]}"
  echo "TARGET $name memrec faster than DHAT: ${wall[memrec]}s vs ${wall[dhat]}s $(check "${wall[memrec]} < ${wall[dhat]}")"
  echo "TARGET $name memrec/none <= 4: $r $(check "$r <= 4")"
  counts "$name" "$json"
done
med=$(printf '%s\n' $ratios | sort -g | awk '{ v[NR] = $1 } END {
  if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "TARGET median memrec/none over the programs <= 2.5: $med $(check "$med <= 2.5")"
exit $fail
