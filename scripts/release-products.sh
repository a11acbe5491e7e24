#!/usr/bin/env bash
# Builds the named products in release mode, one status line each on stderr, and prints the
# folder they are in: what the benchmark scripts that run `corpus` and `corpusd` share.
# Usage: bin="$(scripts/release-products.sh corpus-bench corpus corpusd)"
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

for product in "$@"; do
  scripts/release-build.sh --product "$product" 2>&1 | grep -E "error|Build" | tail -1 >&2
done
scripts/release-build.sh --show-bin-path
