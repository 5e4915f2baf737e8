#!/usr/bin/env bash
# The memrec recorder against independent truth: Lackey's counts, the
# samples' own logic (allocations, calls, threads), and every way a process
# can end (complete traces after exit, _exit, return, SIGSEGV, SIGABRT,
# SIGTERM, SIGINT; a readable truncated trace after SIGKILL), fork and exec,
# an unwritable output path, a non-PIE program, the options.
source "$(dirname "$0")/lib.sh"

# info TRACE KEY: one value of trace-info --json.
info() {
  local f=".$2"; [ "${2:0:1}" = '"' ] && f=$2
  "$BIN/trace-info" --json "$1" 2>/dev/null | jq -r "$f"
}
# ends TRACE: "truncated end_reason exit_status signal"
ends() {
  "$BIN/trace-info" --json "$1" 2>/dev/null |
    jq -r '"\(.truncated) \(.end_reason) \(.exit_status) \(.signal)"'
}
# within A B PERMILLE: |A - B| <= B * PERMILLE / 1000
within() { local d=$(($1 - $2)); [ $((d < 0 ? -d : d)) -le $(($2 * $3 / 1000)) ]; }

check "the tool is built into VALGRIND_LIB" [ -x "$VALGRIND_LIB/memrec-amd64-linux" ]
check "--help lists memrec's options" bash -c \
  "valgrind --tool=memrec --help 2>&1 | grep -q -- '--memrec-out-file=' &&
   valgrind --tool=memrec --help 2>&1 | grep -q -- '--toggle-collect='"

# ---- Lackey parity on a compute-bound run ------------------------------------
# The rule: Lackey counts a guest instruction per executed IMark, a load per
# executed IR load (guarded ones when the guard holds, CAS and LL included)
# and a store per IR store (CAS and SC included). memrec counts the same
# (its modify is one load plus one store), and runs the same code: no
# preload, the program's own malloc. Lackey's counting mode counts a few
# hundred instructions more than its own --trace-mem prints (ld.so's start),
# so the totals agree within 0.1% (1 permille), not exactly
# (dump_lackey_valgrind.sh compares the traces line by line).
# Lackey also skips accesses of dirty helpers (fxsave, cpuid...) and counts
# a double-word CAS twice; neither occurs in the stencil's loops.
prog=$SAMPLES/stencil
valgrind --tool=lackey --detailed-counts=yes --log-file="$TMP/lackey.log" "$prog" 33 10 >/dev/null
lk_instr=$(sed -n 's/.*guest instrs: *\([0-9,]*\).*/\1/p' "$TMP/lackey.log" | tr -d ,)
read -r lk_loads lk_stores < <(awk '/Type +Loads/ { f = 1; next }
  f && /^==[0-9]+== +[A-Z][0-9A-Z]* / { a = $3; b = $4; gsub(/,/, "", a); gsub(/,/, "", b); l += a; s += b }
  END { print l + 0, s + 0 }' "$TMP/lackey.log")
record "$TMP/stencil.trace" "$prog" 33 10 >/dev/null
mr_instr=$(info "$TMP/stencil.trace" instructions)
mr_loads=$(info "$TMP/stencil.trace" loads)
mr_stores=$(info "$TMP/stencil.trace" stores)
echo "# lackey: $lk_instr instructions, $lk_loads loads, $lk_stores stores"
echo "# memrec: $mr_instr instructions, $mr_loads loads, $mr_stores stores"
check "stencil: instructions within 0.1% of Lackey ($mr_instr vs $lk_instr)" \
  within "${mr_instr:-0}" "${lk_instr:-1}" 1
check "stencil: loads within 0.1% of Lackey ($mr_loads vs $lk_loads)" \
  within "${mr_loads:-0}" "${lk_loads:-1}" 1
check "stencil: stores within 0.1% of Lackey ($mr_stores vs $lk_stores)" \
  within "${mr_stores:-0}" "${lk_stores:-1}" 1
check "stencil: tens of millions of instructions (compute-bound)" [ "${mr_instr:-0}" -gt 10000000 ]

# ---- the samples' own logic --------------------------------------------------
# linked_list N mallocs N nodes and one array of N pointers and frees them
# all; glibc adds one allocation of its own: printf's stdout buffer, made on
# the first output and never freed. The loader's allocations before main use
# its private allocator, not malloc, so memrec does not see them.
record "$TMP/list.trace" "$SAMPLES/linked_list" 1000 >/dev/null
check_eq "linked_list 1000: allocations (1000 nodes + array + stdout buffer)" 1002 "$(info "$TMP/list.trace" allocs)"
check_eq "linked_list 1000: frees (1000 nodes + array)" 1001 "$(info "$TMP/list.trace" frees)"
check_eq "linked_list 1000: complete trace" false "$(info "$TMP/list.trace" truncated)"
"$BIN/trace-dump" "$TMP/list.trace" >"$TMP/list.dump"
calls=$(grep -cE ' call .* -> 0x[0-9a-f]+ node_visit:' "$TMP/list.dump")
check_eq "linked_list 1000: node_visit called 1000 times" 1000 "$calls"

# Heap stacks hold only real code: each frame names a function or lies in
# the text of a module of the client. Valgrind's unwinder, past _start,
# guesses return addresses from the stack words (a stack address, %rax...);
# those must not reach the trace. 64 frames leave room for any such guess.
record "$TMP/list64.trace" --stack-depth=64 "$SAMPLES/linked_list" 100 >/dev/null
"$BIN/trace-dump" "$TMP/list64.trace" >"$TMP/list64.dump"
# bad_frames DUMP: the frames of stack records that are neither a function
# nor inside a module's text, one a line, after the count of stacks.
bad_frames() {
  awk 'function hex(s,  v, i) { v = 0; for (i = 3; i <= length(s); i++)
         v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
       $3 == "module" && match($0, / text=0x[0-9a-f]+\+0x[0-9a-f]+/) {
         split(substr($0, RSTART + 6, RLENGTH - 6), r, "+")
         lo[++n] = hex(r[1]); hi[n] = lo[n] + hex(r[2]) }
       $3 == "stack" { stacks++
         sub(/^.* depth=[0-9]+ /, ""); k = split($0, f, / <- /)
         for (i = 1; i <= k; i++) if (f[i] ~ /^0x/) {
           a = hex(f[i]); ok = 0
           for (j = 1; j <= n; j++) if (a >= lo[j] && a < hi[j]) ok = 1
           if (!ok) print f[i] } }
       END { print stacks + 0, "stacks" }' "$1"
}
# 7: the sample's 5 malloc and free stacks, and ld.so's 2 mmap stacks (its
# own allocator maps the link maps and the TLS block).
check_eq "linked_list 1000: 7 call stacks, every frame code of the client" "7 stacks" \
  "$(bad_frames "$TMP/list.dump" | tr '\n' ' ' | sed 's/ $//')"
check_eq "linked_list 100 --stack-depth=64: every frame code of the client" "7 stacks" \
  "$(bad_frames "$TMP/list64.dump" | tr '\n' ' ' | sed 's/ $//')"
check "linked_list 100 --stack-depth=64: the main stacks end at _start (below main)" \
  grep -qE ' stack [0-9]+ depth=[0-9]+ malloc(:[0-9]+)? <- main:[0-9]+ <- .*\(below main\)$' "$TMP/list64.dump"

# Static data objects come from the files mapped into the client, Valgrind's
# core preload included, but not from the tool (whose debug information
# Valgrind also holds, at addresses the client never sees: no module record
# at all), and memrec preloads nothing.
# own_objects DUMP: "modules-of-the-tool data-objects-of-the-tool
# modules-of-a-memrec-preload"
own_objects() {
  awk '$3 == "module" { path[$4] = $5 }
       $3 == "module" && $5 ~ /\/memrec-[^\/]*"$/ { tool++ }
       $3 == "module" && $5 ~ /\/vgpreload_memrec-[^\/]*"$/ { pre++ }
       $3 == "dataobj" { m = $0; sub(/.* module=/, "", m)
         if (path[m] ~ /\/memrec-[^\/]*"$/) own++ }
       END { print tool + 0, own + 0, pre + 0 }' "$1"
}
check_eq "linked_list: no module record or data objects of the tool, no memrec preload" \
  "0 0 0" "$(own_objects "$TMP/list.dump")"
# objects_of DUMP FILE-SUFFIX: how many data objects the module whose path
# ends in FILE-SUFFIX has
objects_of() {
  awk -v want="$2\"" '$3 == "module" && substr($5, length($5) - length(want) + 1) == want { id = $4 }
       $3 == "dataobj" && id != "" && $NF == "module=" id { c++ }
       END { print c + 0 }' "$1"
}
check "linked_list: the program's and libc's own data objects are there" \
  [ "$(objects_of "$TMP/list.dump" /linked_list)" -gt 0 -a "$(objects_of "$TMP/list.dump" /libc.so.6)" -gt 10 ]
check "linked_list: malloc's frame is libc's (the program's own allocator ran)" \
  grep -qE ' stack [0-9]+ depth=[0-9]+ malloc(:[0-9]+)? <- main:' "$TMP/list.dump"

record "$TMP/pc.trace" "$SAMPLES/prodcons" 2000 >/dev/null
check_eq "prodcons: 3 threads (main, producer, consumer)" 3 "$(info "$TMP/pc.trace" threads)"

record "$TMP/matrix.trace" "$SAMPLES/matrix" 64 2 >/dev/null
check_eq "matrix 64 2: four MEMREC_MARK markers" 4 "$(info "$TMP/matrix.trace" marks)"

# ---- every way to end ----------------------------------------------------------
for how in return exit _exit; do
  record "$TMP/$how.trace" "$SAMPLES/exits" "$how" 5 >/dev/null
  check_eq "$how: the program's status" 5 $?
  check_eq "$how: complete trace ending in exit 5" "false exit 5 null" \
    "$(ends "$TMP/$how.trace")"
done
sig_case() {  # name signal-number command...
  local name=$1 sig=$2; shift 2
  "$@" >/dev/null 2>&1
  check_eq "$name: complete trace ending in signal $sig" "false signal null $sig" \
    "$(ends "$TMP/$name.trace")"
}
sig_case segv 11 record "$TMP/segv.trace" "$SAMPLES/segfault"
sig_case abort 6 record "$TMP/abort.trace" "$SAMPLES/exits" abort
sig_case term 15 timeout -s TERM 3 valgrind --tool=memrec -q --memrec-out-file="$TMP/term.trace" "$SAMPLES/exits" loop
sig_case int 2 timeout -s INT 3 valgrind --tool=memrec -q --memrec-out-file="$TMP/int.trace" "$SAMPLES/exits" loop
# SIGKILL to the whole process group kills the encoder too: the file stops
# after the last chunk written. SIGKILL to the recorded process only: the
# encoder sees its input end without an end record and closes the trace
# with reason "lost".
timeout -s KILL 3 valgrind --tool=memrec -q --memrec-out-file="$TMP/kill.trace" "$SAMPLES/exits" loop >/dev/null 2>&1 &
{ wait $!; } 2>/dev/null   # (no "Killed" line from the shell)
check_eq "SIGKILL (group): the trace reads as truncated" true "$(info "$TMP/kill.trace" truncated)"
check "SIGKILL (group): the chunks before the cut are readable" \
  [ "$(info "$TMP/kill.trace" instructions)" -gt 1000000 ]
timeout --foreground -s KILL 3 valgrind --tool=memrec -q --memrec-out-file="$TMP/kill1.trace" \
  "$SAMPLES/exits" loop >/dev/null 2>&1
sleep 1   # the encoder finishes after the program is gone
check_eq "SIGKILL (program only): truncated, reason lost" "true lost" \
  "$(info "$TMP/kill1.trace" '"\(.truncated) \(.end_reason)"' 2>/dev/null || true)"
check "SIGKILL (program only): everything sent is readable" \
  [ "$(info "$TMP/kill1.trace" instructions)" -gt 1000000 ]

# ---- fork and exec ---------------------------------------------------------------
mkdir "$TMP/fork" && (cd "$TMP/fork" &&
  valgrind --tool=memrec -q --trace-children=yes "$SAMPLES/forkexec" >/dev/null 2>&1)
traces=("$TMP"/fork/memrec.out.*)
check_eq "fork+exec: three traces (parent, child until exec, exec'd program)" 3 ${#traces[@]}
how=$(for t in "${traces[@]}"; do ends "$t"; done | sort | tr '\n' ,)
check_eq "fork+exec: all complete; one ends in exec" \
  "false exec null null,false exit 0 null,false exit 0 null," "$how"
pids=$(for t in "${traces[@]}"; do info "$t" pid; done | sort -u | wc -l)
check_eq "fork+exec: two processes (%p)" 2 "$pids"

# An exec that fails does not end the trace.
printf '#include <unistd.h>\nint main(void) { execl("/nonexistent", "x", (char *)0); return 7; }\n' \
  >"$TMP/badexec.c"
cc -o "$TMP/badexec" "$TMP/badexec.c"
record "$TMP/badexec.trace" "$TMP/badexec" >/dev/null 2>&1
check_eq "failed exec: the trace goes on to the exit" "false exit 7 null" "$(ends "$TMP/badexec.trace")"

# ---- bad input ---------------------------------------------------------------------
valgrind --tool=memrec -q --memrec-out-file="$TMP/no/such/dir/x" /usr/bin/touch "$TMP/side-effect" 2>"$TMP/unwritable.err"
check "unwritable output: fails" [ $? -ne 0 ]
check "unwritable output: the program did not run" [ ! -e "$TMP/side-effect" ]
check "unwritable output: says why" grep -q "cannot write $TMP/no/such/dir/x" "$TMP/unwritable.err"
valgrind --tool=memrec --no-such-option=1 /bin/true >/dev/null 2>"$TMP/badopt.err"
check "unknown option: Valgrind's error" [ $? -ne 0 ]

# ---- non-PIE, options ----------------------------------------------------------------
cc -O1 -g -no-pie -fno-pie -o "$TMP/list-nopie" "$ROOT/samples/linked_list.c"
record "$TMP/nopie.trace" "$TMP/list-nopie" 100 >/dev/null
check_eq "non-PIE linked_list 100: allocations" 102 "$(info "$TMP/nopie.trace" allocs)"
check_eq "non-PIE linked_list 100: node_visit calls" 100 \
  "$("$BIN/trace-dump" "$TMP/nopie.trace" | grep -cE ' call .* -> 0x[0-9a-f]+ node_visit:')"

record "$TMP/toggle.trace" --toggle-collect=node_visit "$SAMPLES/linked_list" 1000 >/dev/null
check_eq "--toggle-collect=node_visit: only its 1000 executions" 1000 "$(info "$TMP/toggle.trace" blocks)"
record "$TMP/off.trace" --collect-atstart=no "$SAMPLES/linked_list" 1000 >/dev/null
check_eq "--collect-atstart=no: no block executions" 0 "$(info "$TMP/off.trace" blocks)"
check_eq "--collect-atstart=no: heap still recorded" 1002 "$(info "$TMP/off.trace" allocs)"
record "$TMP/novalues.trace" --values=none "$SAMPLES/linked_list" 1000 >/dev/null
check_eq "--values=none: no values" 0 "$(info "$TMP/novalues.trace" values)"
check "--values=pointers (default): pointer values recorded" \
  [ "$(info "$TMP/list.trace" values)" -gt 1000 ]
# The matrix sums doubles: 8-byte loads into %xmm are data, not pointers,
# so their values are not recorded: the 512x512 walks load 2 x 262144, the
# start-up (ld.so, libc) loads some 30000 pointers.
record "$TMP/matrix.trace" "$SAMPLES/matrix" 512 1 >/dev/null
mloads=$(info "$TMP/matrix.trace" loads) mvalues=$(info "$TMP/matrix.trace" values)
check "--values=pointers: no values of doubles loaded into %xmm ($mvalues values, $mloads loads)" \
  [ "$mloads" -gt 524288 -a "$mvalues" -lt 100000 ]
check "--values=all: the doubles' values too" \
  [ "$(record "$TMP/mall.trace" --values=all "$SAMPLES/matrix" 512 1 >/dev/null; info "$TMP/mall.trace" values)" -gt 524288 ]
record "$TMP/nomem.trace" --trace-mem=no "$SAMPLES/linked_list" 1000 >/dev/null
check_eq "--trace-mem=no: no accesses" 0 "$(info "$TMP/nomem.trace" accesses)"
check_eq "--trace-mem=no: same instructions" "$(info "$TMP/list.trace" instructions)" \
  "$(info "$TMP/nomem.trace" instructions)"

# ---- a dead encoder --------------------------------------------------------------
# Killing the encoder must not kill or block the program: one line says so
# and the program runs on (here until SIGTERM ends it).
valgrind --tool=memrec -q --memrec-out-file="$TMP/dead.trace" "$SAMPLES/exits" loop \
  >/dev/null 2>"$TMP/dead.err" &
vg=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
  enc=$(pgrep -f "memrec-encoder $TMP/dead.trace" || true)
  [ -n "$enc" ] && break
  sleep 0.5
done
sleep 1
[ -n "$enc" ] && kill -KILL $enc
sleep 2
check "dead encoder: the program runs on" kill -0 $vg
kill -TERM $vg
{ wait $vg; } 2>/dev/null
check_eq "dead encoder: the program ends by its own fate (SIGTERM)" 143 $?
check_eq "dead encoder: reported once" 1 "$(grep -c 'the encoder stopped' "$TMP/dead.err")"
