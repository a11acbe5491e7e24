#!/usr/bin/env bash
# Sentence encoder benchmark, one figure set per shape: all-MiniLM-L6-v2 (real weights), and the
# bge-small-en-v1.5 and snowflake-arctic-embed-m-v1.5 shapes (random-weight f32 models from
# scripts/bert_reference.py make; speed does not depend on the weights' values).
#
# In the same run, per shape: the peer is the same forward pass in NumPy (f32, one BLAS call per
# matrix product, `bert_reference.py bench`), and the ceiling is this machine's sgemm rate measured
# with NumPy (`numpy_sgemm.py`) just before and just after that shape's run. `corpus-bench encoder` reports query latency (with the model's
# query prompt), passage throughput at 128 tokens, and the encoder's GFLOP/s as a fraction of the
# sgemm rate. Goals (issue 29): passages at >= 0.8 of sgemm at every shape, a 768-wide query < 60 ms.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/opt/swift/usr/bin:$PATH"

scripts/fetch-model.sh
scripts/release-build.sh --product corpus-bench 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -3
/usr/bin/python3 scripts/bert_reference.py make --out .build/random-models --vocab models/all-MiniLM-L6-v2/vocab.txt \
  --golden Tests/Fixtures/minilm-golden.json

# The peers run on the same OpenBLAS kernels as the encoder. Debian 12's OpenBLAS 0.3.21 picks its
# kernels by CPU model and gives a model newer than its table the Prescott (SSE3) ones; the encoder's
# loader names the core from the CPU's flags instead (OpenBLAS.coreType, docs/engine.md "Matrix
# products"), and the same rule, here, is given to NumPy, so the sgemm ceiling is this machine's
# real one and not a crippled one. A core the user set in OPENBLAS_CORETYPE is kept for both.
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 1; done; }
if [[ -n "${OPENBLAS_CORETYPE:-}" ]]; then core="$OPENBLAS_CORETYPE"
elif has avx512f avx512cd avx512bw avx512dq avx512vl; then core=SkylakeX
elif has avx2 fma; then core=Haswell
else core=""; fi
echo "OpenBLAS core for the encoder and the peers: ${core:-chosen by OpenBLAS}"
peer_env=(env -u OPENBLAS_L2_SIZE ${core:+OPENBLAS_CORETYPE=$core})
# The sgemm rate is measured right before and right after each shape's encoder run, and the
# encoder is divided by the mean of the two: on these shared machines one measurement at the start
# of the script moved from 153 to 224 GFLOP/s between runs minutes apart, more than the figure judged.
sgemm() {
  local json
  json="$("${peer_env[@]}" /usr/bin/python3 scripts/numpy_sgemm.py 1024)"
  echo "numpy sgemm 1024: $json" >&2
  /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1])["gflops"])' "$json"
}

mkdir -p .bench
bge_prompt="Represent this sentence for searching relevant passages: "
run() { # label id folder [--query-prompt P]
  local label=$1 id=$2 folder=$3; shift 3
  local numpy
  numpy="$("${peer_env[@]}" /usr/bin/python3 scripts/bert_reference.py bench --model "$folder" "$@")"
  echo "numpy $label: $numpy"
  local before after
  before="$(sgemm)"
  .build/release/corpus-bench encoder --model "$folder" --id "$id" --label "$label" --sgemm-gflops "$before" "$@" | tee ".bench/encoder-$label.txt"
  after="$(sgemm)"
  # Machine-readable lines for scripts/bench.sh: RESULT name value unit peer ratio goal.
  /usr/bin/python3 - ".bench/encoder-$label.txt" "$numpy" "$label" "$before" "$after" <<'PY'
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith('{"bench": "%s"' % sys.argv[3])][-1]
f, n, label = json.loads(line), json.loads(sys.argv[2]), sys.argv[3]
ceiling = (float(sys.argv[4]) + float(sys.argv[5])) / 2
print("sgemm around %s: %.1f before, %.1f after GFLOP/s" % (label, float(sys.argv[4]), float(sys.argv[5])))
wide = "768" in label or "arctic" in label
print("RESULT\t%s query (%d tokens) p50 vs NumPy\t%.2f\tms\t%.2f\t%.2f\t%s" % (label, f["query_tokens"], f["query_p50_ms"], n["query_p50_ms"],
      f["query_p50_ms"] / n["query_p50_ms"], "<60" if wide else "-"))
print("RESULT\t%s passages (128 tokens) vs NumPy speedup\t%.1f\tpassages/s\t%.1f\t%.2f\t-" % (label, f["passages_per_second"], n["passages_per_second"],
      f["passages_per_second"] / n["passages_per_second"]))
print("RESULT\t%s encoder GFLOP/s vs NumPy sgemm\t%.1f\tGFLOP/s\t%.1f\t%.2f\t>=0.8x" % (label, f["encoder_gflops"], ceiling, f["encoder_gflops"] / ceiling))
PY
}
run minilm all-MiniLM-L6-v2 models/all-MiniLM-L6-v2 "$@"
run bge-small bge-small-en-v1.5 .build/random-models/bge-small-f32 --query-prompt "$bge_prompt" "$@"
run arctic-embed-m snowflake-arctic-embed-m-v1.5 .build/random-models/arctic-embed-m-f32 "$@"
