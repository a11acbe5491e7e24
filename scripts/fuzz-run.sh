#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS (default 60) each, FUZZ_JOBS at a time (default: one per
# core, each run is one process on one core), and prints one table:
# target, executions, execs/s, coverage (libFuzzer's final `cov:`), the slowest input's seconds,
# peak RSS, crashes. Each run has
# AddressSanitizer with leak detection, `-timeout=1` (an input taking over a second is a
# failure) and the target's dictionary. Exits 1 when any target crashed, leaked or timed out;
# the input is kept under .build/fuzz/crashes/<Target>/ and the log under .build/fuzz/logs/.
# The growing corpus stays in .build/fuzz/corpus/<Target>/ between runs. See docs/fuzzing.md.
#
# Usage: FUZZ_SECONDS=60 scripts/fuzz-run.sh [TARGET...]   (after fuzz-build.sh and fuzz-seeds.sh)
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
seconds="${FUZZ_SECONDS:-60}"
# FUZZ_TIMEOUT: seconds one input may take (1 for `make fuzz`; the CI smoke allows 5, since a CI
# machine may be slower than the one the limit was set on and a smoke must not fail on that alone).
fuzz=.build/fuzz

# The dictionaries each target gets (Fuzz/dicts/), concatenated.
dicts_for() {
  case "$1" in
    SignedDocuments) echo json ;;
    MinisignText) echo minisign ;;
    EntitlementToken) echo "jose json" ;;
    RequestHead) echo http ;;
    FTSQuery) echo fts5 ;;
    IngestHTML) echo html ;;
    IngestMarkdown) echo markdown ;;
    IngestEPUB) echo "zip html" ;;
    ZipBundle) echo "zip json" ;;
    ImportReaderApp | ImportBrowserExport | ImportKnowledgeApp) echo "zip json markdown" ;;
    *) echo "" ;;
  esac
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in Fuzz/*.swift; do targets+=("$(basename "$f" .swift)"); done
fi

vocab="$repo/models/all-MiniLM-L6-v2/vocab.txt"
[ -s "$vocab" ] || vocab=""
jobs_at_once="${FUZZ_JOBS:-$(nproc)}"
mkdir -p "$fuzz/logs" "$fuzz/dicts"
# This run's rows (a folder of its own, so two runs over different targets can go side by side).
rows=$(mktemp -d "$fuzz/rows.XXXXXX")
trap 'rm -rf "$rows"' EXIT

# One target's run; its table row goes to $rows/<Target> (and $rows/<Target>.failed on failure).
run_target() {
  local t="$1"
  corpus="$fuzz/corpus/$t"
  crashes="$fuzz/crashes/$t"
  tmp="$fuzz/tmp/$t"
  log="$fuzz/logs/$t.log"
  mkdir -p "$corpus" "$crashes" "$tmp"
  dict_args=()
  names=$(dicts_for "$t")
  if [ -n "$names" ]; then
    : >"$fuzz/dicts/$t.dict"
    for d in $names; do cat "Fuzz/dicts/$d.dict" >>"$fuzz/dicts/$t.dict"; done
    dict_args=(-dict="$fuzz/dicts/$t.dict")
  fi
  before=$(ls "$crashes" | wc -l)
  TMPDIR="$repo/$tmp" FUZZ_VOCAB="$vocab" ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
    LSAN_OPTIONS="suppressions=$repo/Fuzz/lsan.supp" \
    "$fuzz/bin/$t" "$corpus" "$fuzz/seeds/$t" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=3072 \
    -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict_args[@]}" >"$log" 2>&1
  rc=$?
  rm -rf "$tmp"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
  found=$(( $(ls "$crashes" | wc -l) - before ))
  result=ok
  if [ $rc -ne 0 ] || [ "$found" -gt 0 ]; then
    # The first of: a broken property, a Swift trap (the runtime's backtracer names it), a
    # sanitizer's or libFuzzer's own report (timeout, leak, out of memory).
    result=$(grep -o -m1 -E 'fuzz property failed|Fatal error: [^:]*|Program crashed: [A-Za-z ]*' "$log" \
      || grep -o -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z-]+' "$log" || echo "exit $rc")
    [ "$found" -gt 0 ] || found=1
  fi
  printf '%-20s %12s %10s %8s %9s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${slowest:-?}" "${rss:-?}" "$found" "$result" >"$rows/$t"
  [ "$result" = ok ] || : >"$rows/$t.failed"
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n || true; done
  run_target "$t" &
done
wait

printf '%-20s %12s %10s %8s %9s %8s %8s  %s\n' target executions execs/s cov slowest_s rss_mb crashes result
for t in "${targets[@]}"; do cat "$rows/$t"; done
if ls "$rows"/*.failed >/dev/null 2>&1; then
  echo "fuzz: a target failed; inputs under $fuzz/crashes/, logs under $fuzz/logs/" >&2
  exit 1
fi
