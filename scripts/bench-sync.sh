#!/usr/bin/env bash
# Sync benchmark: `corpus sync` (the whole process, release build) with 100 installed corpora and
# an unchanged catalog, served by `corpusd serve` on loopback. Goal: median <= 150 ms, and exactly
# one HTTP request per sync (a conditional GET answered 304, counted from corpusd's /metrics).
# The published tree of 100 small corpora is built once under .bench/sync.
# Usage: scripts/bench-sync.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

bin="$(scripts/release-products.sh corpus-bench corpus corpusd)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/corpus-bench" sync --work .bench/sync --runs "${1:-15}" --bin "$bin"
