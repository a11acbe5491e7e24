#!/usr/bin/env bash
# `make eval`: retrieval quality of BM25, dense (all-MiniLM-L6-v2), the model-free hashing
# embedder and their fusions on real collections nobody on the team wrote, one per
# eval/*-queries.json: a subset of the Python documentation (Debian's python3-doc) and of the
# SQLite documentation (Debian's sqlite3-doc), each file naming its collection and questions.
# Prints hit@5 and MRR@10 per method (docs/engine.md "Fusion, measured"); details in
# .eval/<collection>/results.json. The first run builds each collection twice (MiniLM and
# hashing; a few minutes on two cores); later runs reuse the builds.
# Usage: scripts/eval.sh [queries file …] [-- corpus-bench eval options, e.g. --verbose]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

files=()
while (($#)) && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
((${#files[@]})) || files=(eval/*-queries.json)

scripts/fetch-model.sh
for f in "${files[@]}"; do
  root=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["collection"]["root"])' "$f")
  if [ ! -d "$root" ]; then
    echo "eval: $root ($f) is missing; install its Debian package (make bootstrap does)" >&2
    exit 1
  fi
done
scripts/release-build.sh --product corpus-bench
bin="$(scripts/release-build.sh --show-bin-path)"
for f in "${files[@]}"; do
  name=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["collection"]["name"])' "$f")
  echo "== $f"
  "$bin/corpus-bench" eval --queries "$f" --model models/all-MiniLM-L6-v2 --work ".eval/$name" "$@"
done
