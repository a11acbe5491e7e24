#!/usr/bin/env bash
# Build benchmark: `corpus-bench build` generates 100,000 passages in 1,000 files, bulk-loads them
# into FTS5 with the sqlite3 CLI (the floor) and builds a signed bundle from the files, in the
# same run. Goal: build_vs_floor <= 1.5.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

swift build -c release --product corpus-bench >/dev/null
bin="$(swift build -c release --show-bin-path)/corpus-bench"
"$bin" build --work .bench/build "$@"
