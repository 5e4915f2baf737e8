#!/usr/bin/env bash
# The program as it runs without memrec: `trace-dump --format=lackey` of a
# recording is Lackey's own `--trace-mem=yes --vex-guest-chase=no` output,
# line for line over the whole run (ld.so, libc, glibc's malloc, the C++
# runtime's operator new and delete), for a malloc-heavy C sample and a
# C++ program full of std::map nodes, new and delete. memrec replaces no
# allocator and preloads nothing, so the instructions, the heap addresses
# and the stack addresses are the ones Lackey sees.
#
# The one difference that cannot go: ld.so's strcspn, splitting LD_PRELOAD
# (Valgrind's own vgpreload_core) at startup, reads the aligned word holding
# the string's terminating NUL, so up to 3 bytes past it, which are the
# first of the 16 random bytes of AT_RANDOM; each indexes a table on the
# stack, so up to 3 one-byte load addresses change from run to run, under
# Lackey as under memrec. Those lines, and only those, may differ.
source "$(dirname "$0")/lib.sh"

[ -x "$BIN/trace-dump" ] || skip "$BIN/trace-dump not built"
command -v valgrind >/dev/null || skip "valgrind not installed"
ls "$VALGRIND_LIB"/memrec-* >/dev/null 2>&1 || skip "memrec tool not built in $VALGRIND_LIB"
command -v g++ >/dev/null || skip "g++ not installed (make deps)"

cat > "$TMP/tree.cc" <<'EOF'
// Nodes of a std::map and objects of two sizes, made and destroyed.
#include <cstdio>
#include <map>
#include <memory>
#include <vector>
struct big { long v[9]; };
int main() {
    std::map<int, std::unique_ptr<big>> m;
    std::vector<long *> smalls;
    for (int i = 0; i < 400; i++) {
        m[(i * 7919) % 1009] = std::make_unique<big>();
        smalls.push_back(new long[1 + i % 5]);
        if (i % 3 == 0)
            m.erase(m.begin());
    }
    long s = 0;
    for (auto &kv : m)
        s += kv.first;
    for (long *p : smalls)
        delete[] p;
    std::printf("%zu %ld\n", m.size(), s);
    return 0;
}
EOF
g++ -O1 -g -o "$TMP/tree" "$TMP/tree.cc"
check_eq "the C++ program built" 0 $?

# compare NAME: Lackey's lines against the trace's; prints "LINES DIFFS BAD"
# where BAD counts the differing lines that are not a one-byte load by
# ld.so's strcspn (whose instruction addresses the trace's symbols give).
compare() {
  local name=$1
  "$BIN/trace-dump" -q "$TMP/$name.trace" |
    awk '$1 == "instr" && $4 ~ /^strcspn:/ { sub(/,.*/, "", $3); print $3 }' |
    sed 's/^0x//' | sort -u > "$TMP/$name.strcspn"
  paste -d'\t' "$TMP/$name.want" "$TMP/$name.got" |
    awk -F'\t' -v list="$TMP/$name.strcspn" '
      BEGIN { while ((getline a < list) > 0) sc[a] = 1 }
      { n++
        if ($1 ~ /^I  /) { split(substr($1, 4), f, ","); ip = f[1]; sub(/^0+/, "", ip) }
        if ($1 == $2) next
        d++
        if (!($1 ~ /^ L [0-9a-f]+,1$/ && $2 ~ /^ L [0-9a-f]+,1$/ && (ip in sc))) bad++ }
      END { print n + 0, d + 0, bad + 0 }'
}

for run in "linked_list|$SAMPLES/linked_list 300 1" "tree|$TMP/tree"; do
  IFS='|' read -r name cmd <<<"$run"
  # shellcheck disable=SC2086  # the command is a word list
  record "$TMP/$name.trace" $cmd >/dev/null 2>"$TMP/$name.err"
  check_eq "$name: recorded" 0 $?
  # shellcheck disable=SC2086
  valgrind --tool=lackey --trace-mem=yes --vex-guest-chase=no \
    --log-file="$TMP/$name.lackey" $cmd >/dev/null 2>&1
  check_eq "$name: Lackey ran" 0 $?
  grep -E '^(I  | [LSM] )' "$TMP/$name.lackey" > "$TMP/$name.want"
  "$BIN/trace-dump" --format=lackey "$TMP/$name.trace" > "$TMP/$name.got"
  check_eq "$name: as many lines as Lackey's" "$(wc -l < "$TMP/$name.want")" "$(wc -l < "$TMP/$name.got")"
  read -r lines diffs bad <<<"$(compare "$name")"
  check "$name: Lackey printed a whole run ($lines lines)" [ "${lines:-0}" -gt 100000 ]
  check_eq "$name: every line as Lackey's but strcspn's reads of AT_RANDOM ($diffs differ)" 0 "${bad:-1}"
  check "$name: at most 3 such lines" [ "${diffs:-9}" -le 3 ]
  [ "${bad:-1}" = 0 ] || diff "$TMP/$name.want" "$TMP/$name.got" | head -n 6 | sed 's/^/# /'
done
# The C++ program's heap operations: operator new and new[] and their
# deletes are recorded as themselves, not the malloc and free they call
# (nor operator new, to which libstdc++'s operator new[] jumps): 400 map
# nodes and 400 objects by new, the vector's buffers by new too, 400 arrays
# by new[]; every one deleted.
ops=$("$BIN/trace-dump" -q "$TMP/tree.trace" | awk '$3 ~ /^(malloc|new|new\[\]|delete|delete\[\]|free)$/ { c[$3]++ }
  END { printf "%d %d %d %d\n", c["new"], c["new[]"], c["delete"], c["delete[]"] }')
read -r nnew nnewa ndel ndela <<<"$ops"
check_eq "tree: 400 arrays by new[], 400 delete[]" "400 400" "$nnewa $ndela"
check "tree: 800 objects and nodes and the vector's buffers by new, as many deletes ($nnew, $ndel)" \
  [ "${nnew:-0}" -gt 800 -a "${nnew:-0}" -lt 830 -a "${nnew:-0}" = "${ndel:-1}" ]
echo "1..$_n"
