#!/usr/bin/env bash
# `make eval`: retrieval quality of BM25, dense (all-MiniLM-L6-v2) and their fusions on a real
# collection nobody on the team wrote — a subset of the Python documentation that Debian's
# python3-doc package installs — with the questions in eval/python-docs-queries.json.
# Prints hit@5 and MRR@10 per method (docs/engine.md "Fusion, measured"); details in .eval/results.json.
# The first run builds the collection with MiniLM (about a minute on two cores); later runs reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

scripts/fetch-model.sh
root=$(python3 -c 'import json;print(json.load(open("eval/python-docs-queries.json"))["collection"]["root"])')
if [ ! -d "$root" ]; then
  echo "eval: $root is missing; install python3-doc (make bootstrap does)" >&2
  exit 1
fi
scripts/release-build.sh --product corpus-bench
bin="$(scripts/release-build.sh --show-bin-path)"
"$bin/corpus-bench" eval --queries eval/python-docs-queries.json --model models/all-MiniLM-L6-v2 --work .eval "$@"
