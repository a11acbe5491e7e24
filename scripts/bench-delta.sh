#!/usr/bin/env bash
# Delta benchmark (issue 14): a corpus of 100,000 generated passages updated from version 1 to 2
# when 1 % of its documents change, 10 %, and one passage. For each: the bytes of the delta
# `corpusd publish` writes against the full bundle (goal for 1 %: <= 0.02), the same pair updated
# with zsync and with casync from nginx (goal: the delta >= 10 times fewer bytes than the better
# of the two), and `corpus sync` by delta against `corpus install` of version 2 (goal <= 0.5).
# Everything lives under .bench/delta (rebuilt each run, about 3 GB).
# Usage: scripts/bench-delta.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

for tool in zsync zsyncmake casync nginx curl; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || { echo "bench-delta: $tool is missing (scripts/bootstrap.sh installs it)"; exit 1; }
done
scripts/release-build.sh --product corpus-bench 2>&1 | grep -E "error|Build" | tail -1
scripts/release-build.sh --product corpus 2>&1 | grep -E "error|Build" | tail -1
scripts/release-build.sh --product corpusd 2>&1 | grep -E "error|Build" | tail -1
bin="$(scripts/release-build.sh --show-bin-path)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/corpus-bench" delta --work .bench/delta --rounds "${1:-3}" --bin "$bin"
