#!/usr/bin/env bash
# The encoder is reaped by the recording it serves: when valgrind exits, no
# memrec-encoder is left behind (orphaned to init, a zombie), and its CPU
# time is part of the rusage of the valgrind process (`time` counts it).
# The client's own wait() still never sees it. A Python subreaper runs the
# recording: every descendant orphaned on the way is reparented to it, so
# it can count them.
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || { echo "1..0 # SKIP $PY is missing (make deps)"; exit 0; }

# subreaper VALGRIND-ARGS...: prints "STATUS REAPED-CPU ENCODER-CPU ORPHANS"
# (the recording's exit status, the CPU seconds of the processes the
# valgrind process reaped (/proc/PID/stat's cutime + cstime, read while it
# is a zombie), the encoder's own CPU as it reports it, the processes
# orphaned to us).
subreaper() {
  MEMREC_ENCODER_RUSAGE=$TMP/enc.rusage "$PY" - "$@" <<'EOF'
import ctypes, os, sys
PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
cmd = ["valgrind", "--tool=memrec", "-q"] + sys.argv[1:]
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)   # the program's output is not ours
    os.execvp(cmd[0], cmd)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)     # a zombie: /proc still has it
stat = open("/proc/%d/stat" % pid).read()
fields = stat[stat.rindex(")") + 2:].split()              # from field 3 (state) on
reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")   # cutime, cstime
_, status, _ = os.wait4(pid, 0)
orphans = 0
while True:
    try:
        p, _, _ = os.wait4(-1, os.WNOHANG | 0x40000000)   # __WALL: clone children too
    except ChildProcessError:
        break
    if p == 0:                     # one still runs: wait for it to end
        os.wait4(-1, 0x40000000)
    orphans += 1
enc = open(os.environ["MEMREC_ENCODER_RUSAGE"]).read().split()
print(os.waitstatus_to_exitcode(status), reaped,
      float(enc[1]) + float(enc[2]), orphans)
EOF
}

# A program that waits for a child of its own (wait() must get that child,
# not an encoder) and whose child execs it again, recorded too: the exec'd
# program inherits the child's first encoder and reaps it as well. Three
# encoders: the parent's, the child's before and after its exec.
read -r st cpu enc orphans < <(subreaper --trace-children=yes --memrec-out-file="$TMP/f.%p" \
  "$SAMPLES/forkexec" x 2000000 2>/dev/null)
check_eq "forkexec: exit status under memrec (the child's status came to wait())" 0 "${st:-x}"
check_eq "forkexec: no process orphaned by the recording" 0 "${orphans:-x}"
check_eq "forkexec: three traces" 3 "$(ls "$TMP"/f.* 2>/dev/null | wc -l)"

# Long enough for the encoder to take a few tenths of a second.
read -r st cpu enc orphans < <(subreaper --memrec-out-file="$TMP/s.trace" "$SAMPLES/stencil" 65 10 2>/dev/null)
check_eq "stencil: exit status under memrec" 0 "${st:-x}"
check_eq "stencil: no process orphaned by the recording" 0 "${orphans:-x}"
# Clock ticks round each process's time down: 0.02 s of slack.
check "stencil: the encoder's CPU (${enc:-?} s) is in what valgrind reaped (${cpu:-?} s)" \
  awk "BEGIN { exit !(${enc:-0} >= 0.1 && ${cpu:-0} + 0.02 >= ${enc:-1}) }"
check "stencil: the trace is complete" \
  bash -c "'$BIN/trace-info' --json '$TMP/s.trace' | jq -e '.truncated == false' >/dev/null"
# A program without children that waits: wait() must fail at once with
# ECHILD (-1), neither return the encoder's keeper nor block until it ends.
out=$(timeout 60 valgrind --tool=memrec -q --memrec-out-file="$TMP/w.trace" \
  perl -e 'my $r = wait(); print "$r $!\n"' 2>/dev/null)
check_eq "a client's wait() without children gets ECHILD" "-1 No child processes" "$out"
echo "1..$_n"
