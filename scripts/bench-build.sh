#!/usr/bin/env bash
# Build benchmark: `corpus-bench build` generates 100,000 passages in 1,000 files, bulk-loads them
# into FTS5 with the sqlite3 CLI (the floor) and builds a signed bundle from the files, in the
# same run. Goal: build_vs_floor <= 1.5.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

scripts/release-build.sh --product corpus-bench >/dev/null
bin="$(scripts/release-build.sh --show-bin-path)/corpus-bench"
mkdir -p .bench
"$bin" build --work .bench/build "$@" | tee .bench/build.txt
# One machine-readable line for scripts/bench.sh: RESULT name value unit peer ratio goal.
awk -F= '$1 == "build_total_s" { b = $2 } $1 == "floor_sqlite3_import_s" { f = $2 }
  END { if (b != "" && f > 0) printf "RESULT\tbuild 100k passages vs sqlite3 FTS5 import\t%.2f\ts\t%.2f\t%.2f\t<=1.5x\n", b, f, b / f }' .bench/build.txt
