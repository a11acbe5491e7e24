#!/usr/bin/env bash
# Transparency-log benchmark: what one catalog refresh costs a client in log traffic when the log
# grew by one leaf, and by one publish (two leaves: flat catalog and top document), at 10, 10,000,
# 1,000,000 and 1,048,574 leaves (the worst right edge near a million; logs generated with the
# publisher's writer and served by `corpusd serve`, kept under .bench/log between runs). Prints
# the bytes fetched (checkpoint and tiles; goal <= 20 KB), the median time of the check (fetch and
# verify) and of the verification alone, and the size of the inclusion proof a client keeps with a
# corpus (goal < 1 KB).
# Usage: scripts/bench-log.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

bin="$(scripts/release-products.sh corpus-bench corpusd)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/corpus-bench" log --work .bench/log --runs "${1:-7}" --bin "$bin"
