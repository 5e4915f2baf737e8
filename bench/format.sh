#!/usr/bin/env bash
# The trace format against issue 2's targets: encode and decode speed and
# bytes per memory access on synthetic streams, each compared with `zstd -3`
# of the same accesses as plain 16-byte records (bench/bench_format.c).
# Prints one table and a PASS/FAIL line per target. Exits 0 when a target
# fails (this reports, CI does not run it); non-zero when something breaks.
#   BENCH_ACCESSES  accesses per stream (default 20000000)
#   BENCH_RUNS      runs per measurement, the median is shown (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMREC_BUILD:-build}
bench=$build/bench/bench_format
if [ ! -x "$bench" ]; then
  echo "format.sh: $bench: not built (make BUILD=$build $bench)" >&2
  exit 1
fi
if ! command -v zstd >/dev/null; then
  echo "format.sh: zstd: command not found (the baseline; make deps installs it)" >&2
  exit 1
fi
exec "$bench" --accesses="${BENCH_ACCESSES:-20000000}" --runs="${BENCH_RUNS:-3}" "$@"
