#!/usr/bin/env bash
# Install benchmark: `corpus install` of a corpus whose bundle holds a 1 GiB stored vectors.bin,
# served by `corpusd serve` on loopback, against a naive script doing less with the same bytes
# (`curl -o F URL && openssl dgst -sha256 F && unzip -q F -d DIR`), alternating, best of ROUNDS.
# Goals: corpus / naive <= 1.0, corpus peak RSS <= 64 MiB. The bundle and published tree are built
# once under .bench/install (about 2.2 GB); each run uses a fresh --home.
# Usage: scripts/bench-install.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

for tool in curl openssl unzip /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench-install: $tool is missing"; exit 1; }
done
bin="$(scripts/release-products.sh corpus-bench corpus corpusd)"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$bin/corpus-bench" install --work .bench/install --rounds "${1:-3}" --bin "$bin"
