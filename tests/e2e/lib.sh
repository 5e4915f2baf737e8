# Shared helpers for the end-to-end tests: TAP output and the paths of the build.
# Source it; each check prints "ok N - what" or "not ok N - what".
set -u
ROOT=${MEMREC_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD_DIR=${MEMREC_BUILD:-$ROOT/build}
BIN=${MEMREC_BIN:-$BUILD_DIR/bin}
SAMPLES=$BUILD_DIR/samples
export VALGRIND_LIB=$BUILD_DIR/valgrind
TMP=$(mktemp -d "${TMPDIR:-/tmp}/memrec-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
_n=0

ok()   { _n=$((_n + 1)); echo "ok $_n - $*"; }
fail() { _n=$((_n + 1)); echo "not ok $_n - $*"; }
# check "what" test-expression...: ok when the command succeeds
check() { local what=$1; shift; if "$@"; then ok "$what"; else fail "$what"; fi; }
# check_eq "what" expected actual
check_eq() {
  if [ "$2" == "$3" ]; then ok "$1"; else fail "$1 (expected '$2', got '$3')"; fi
}
# record OUT PROGRAM ARGS...: runs PROGRAM under memrec into trace OUT
record() {
  local out=$1; shift
  valgrind --tool=memrec -q --memrec-out-file="$out" "$@"
}
