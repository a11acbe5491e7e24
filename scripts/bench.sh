#!/usr/bin/env bash
# `make bench`: runs every scripts/bench-*.sh (after the release build `make` did), keeps each
# one's full output under .bench/logs/, and prints one table of the figures they report on
# `RESULT<TAB>name<TAB>value<TAB>unit<TAB>peer<TAB>ratio<TAB>goal` lines. A goal ending in "x"
# applies to the ratio (figure / peer, or peer / figure where the line says "speedup"), any other
# goal to the figure itself; "-" means no goal, the figure is for information.
# Cached inputs live under .bench/ (the first run builds them: a few GB, several minutes).
# Usage: scripts/bench.sh [NAME...]   e.g. scripts/bench.sh install sync
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

logs=.bench/logs
mkdir -p "$logs"
results=$logs/results.tsv
: > "$results"
started=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: nproc $(nproc), load average $load_start, logs in $logs/"

if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for script in scripts/bench-*.sh; do names+=("$(basename "$script" .sh | sed 's/^bench-//')"); done
fi

for name in "${names[@]}"; do
  script=scripts/bench-$name.sh
  [ -x "$script" ] || { printf 'RESULT\t%s\t-\t-\t-\t-\tno such benchmark\n' "$name" >> "$results"; continue; }
  t0=$(date +%s)
  printf '== %-8s ' "$name"
  if "$script" > "$logs/$name.log" 2>&1; then status=ok; else status="FAILED (exit $?)"; fi
  found=$(grep -c $'^RESULT\t' "$logs/$name.log" || true)
  grep $'^RESULT\t' "$logs/$name.log" >> "$results"
  if [ "$found" = 0 ]; then
    printf 'RESULT\t%s: no figures (see %s)\t-\t-\t-\t-\t%s\n' "$name" "$logs/$name.log" "$status" >> "$results"
  fi
  echo "$status, $(( $(date +%s) - t0 )) s, $found figures"
done

echo
echo "bench: nproc $(nproc); load average at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - started )) s in all"
awk -F'\t' '
  function num(s) { return s + 0 }
  function met(value, ratio, goal,   op, target, x) {
    if (goal == "-" || goal == "") return "n/a"
    if (goal !~ /^(<=|>=|==|<|>)[0-9.]+x?$/) return goal
    x = (goal ~ /x$/) ? ratio : value
    if (x == "-" || x == "") return "?"
    match(goal, /^(<=|>=|==|<|>)/); op = substr(goal, 1, RLENGTH); target = substr(goal, RLENGTH + 1); sub(/x$/, "", target)
    x = num(x); target = num(target)
    if (op == "<=") return x <= target ? "yes" : "NO"
    if (op == ">=") return x >= target ? "yes" : "NO"
    if (op == "<") return x < target ? "yes" : "NO"
    if (op == ">") return x > target ? "yes" : "NO"
    return x == target ? "yes" : "NO"
  }
  { rows[NR] = $0; n = NR; w = length($2); if (w > width) width = w }
  END {
    if (width < 9) width = 9
    fmt = "%-" width "s  %12s  %12s  %6s  %-8s  %s\n"
    printf fmt, "benchmark", "figure", "peer", "ratio", "goal", "met?"
    for (i = 1; i <= n; i++) {
      split(rows[i], f, "\t")
      figure = (f[3] == "-") ? "-" : f[3] " " f[4]
      peer = (f[5] == "-") ? "-" : f[5] " " f[4]
      printf fmt, f[2], figure, peer, f[6], f[7], met(f[3], f[6], f[7])
    }
  }' "$results"
