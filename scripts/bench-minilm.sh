#!/usr/bin/env bash
# MiniLM embedder benchmark: builds corpus-bench in release, measures the machine's sgemm rate
# with NumPy (the peer), then runs `corpus-bench minilm` in the same run, which reports query
# latency, passage throughput and encoder GFLOP/s as a fraction of that rate.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/opt/swift/usr/bin:$PATH"

scripts/fetch-model.sh
scripts/release-build.sh --product corpus-bench 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3

# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE may be set on this machine for old OpenBLAS builds; they
# slow a current NumPy, so they are unset for the peer's command alone (and nowhere else).
peer_json="$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 scripts/numpy_sgemm.py 1024)"
echo "numpy sgemm 1024: $peer_json"
peer="$(/usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])["gflops"])' "$peer_json")"

mkdir -p .bench
.build/release/corpus-bench minilm --model models/all-MiniLM-L6-v2 --sgemm-gflops "$peer" "$@" | tee .bench/minilm.txt
# Machine-readable lines for scripts/bench.sh: RESULT name value unit peer ratio goal (no goal set: "-").
/usr/bin/python3 - .bench/minilm.txt <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith('{"bench": "minilm"')][-1]
f = json.loads(line)
print("RESULT\tMiniLM query (12 tokens) p50\t%.2f\tms\t-\t-\t-" % f["query_p50_ms"])
print("RESULT\tMiniLM passages (128 tokens)\t%.1f\tpassages/s\t-\t-\t-" % f["passages_per_second"])
if "sgemm_peer_gflops" in f:
    print("RESULT\tMiniLM encoder GFLOP/s vs NumPy sgemm\t%.1f\tGFLOP/s\t%.1f\t%.2f\t-" % (f["encoder_gflops"], f["sgemm_peer_gflops"], f["encoder_fraction_of_sgemm"]))
PY
