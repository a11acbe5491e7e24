#!/usr/bin/env bash
# Search benchmarks (issue 17), on SQLite's documentation pages (Debian sqlite3-doc), built with the
# model-free embedder:
#   remote search p50 and req/s at 16 clients (corpusd serve --search) against local search (the
#   engine in one process, 16 concurrent searches)        goal: remote p50 <= local p50 + 5 ms
#   `corpus search` as a whole process against `kiwix-search` (Debian kiwix-tools) on a ZIM that
#   zimwriterfs (zim-tools) makes from the same HTML folder  goal: corpus <= kiwix (ratio <= 1x)
# Usage: scripts/bench-search.sh [SECONDS]   (work files under .bench/search, reused)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
SECS=${1:-5}
WORK=$PWD/.bench/search
DOCS=/usr/share/doc/sqlite3
mkdir -p "$WORK"
[ -d "$DOCS" ] || { echo "bench-search: $DOCS is missing (apt-get install sqlite3-doc; scripts/bootstrap.sh does)"; exit 1; }

# One product per `swift build` (given several --product options, it builds only the last).
bin="$(scripts/release-products.sh corpus corpusd corpus-bench)"

# The corpus: every HTML page of sqlite3-doc (the same folder the ZIM is made from).
SRC=$WORK/html
if [ ! -d "$SRC" ]; then
  mkdir -p "$SRC" && cp -r "$DOCS"/. "$SRC"/ && find "$SRC" -name '*.gz' -delete
fi
pages=$(find "$SRC" -name '*.html' | wc -l)
[ -f "$WORK/keys/bench.key" ] || "$bin/corpusd" keygen --out "$WORK/keys" --name bench >/dev/null
. scripts/loopback-serving.sh
# A published tree listing the corpus (model-free embedder), installed into a home with the client.
tree=$WORK/tree
if [ ! -f "$tree/public/catalog.json" ]; then
  rm -rf "$tree"; mkdir -p "$tree/catalog"
  ln -s "$SRC" "$tree/catalog/sqlite-docs"
  /usr/bin/python3 - "$tree/catalog" <<'PY'
import json, sys
json.dump({"id": "bench", "title": "bench", "corpora": [{"id": "sqlite-docs", "version": "1", "title": "SQLite documentation",
  "description": "bench", "language": "en", "license": "public-domain", "source": "sqlite-docs", "access": "free"}]},
  open(sys.argv[1] + "/catalog.json", "w"))
PY
  "$bin/corpusd" publish "$tree/catalog" --out "$tree/public" --key "$WORK/keys/bench.key" --quiet
fi
home=$WORK/home
install_home "$tree/public" "$WORK/keys/bench.pub" "$home" sqlite-docs

queries=$WORK/queries.txt
printf '%s\n' "virtual table" "write ahead log" "foreign key constraint" "full text search" "json functions" \
  "vacuum into" "busy timeout" "prepared statement" "date and time functions" "window functions" \
  "upsert on conflict" "attach database" "pragma journal mode" "rtree spatial index" "backup api" \
  "how do I make sqlite faster" "autoincrement rowid" "collating sequence" "query planner" "savepoint" > "$queries"

echo "== local vs remote search, 16 clients, ${SECS}s each ($pages pages)"
local_line=$("$bin/corpus-bench" search-load --home "$home" --queries "$queries" --clients 16 --seconds "$SECS")
echo "local:  $local_line"
port=$(freeport)
"$bin/corpusd" serve "$tree/public" --listen "127.0.0.1:$port" --quiet --search "$home" & spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
waitup "$port"
remote_line=$("$bin/corpus-bench" search-load --home "$home" --queries "$queries" --clients 16 --seconds "$SECS" --url "http://127.0.0.1:$port")
echo "remote: $remote_line"
kill $spid; wait $spid 2>/dev/null || true
num() { sed -E "s/.*$1=([0-9.]+).*/\1/" <<<"$2"; }
lp50=$(num p50_ms "$local_line"); rp50=$(num p50_ms "$remote_line"); lrps=$(num rps "$local_line"); rrps=$(num rps "$remote_line")
calc() { /usr/bin/python3 -c "print($1)"; }
printf 'RESULT\tremote search p50, 16 clients\t%s\tms\t%s\t%s\t<= %s\n' "$rp50" "$lp50" "$(calc "'%.2f' % ($rp50 / max($lp50, 0.001))")" "$(calc "'%.1f' % ($lp50 + 5)")"
printf 'RESULT\tremote search req/s, 16 clients\t%s\treq/s\t%s\t%s\t-\n' "$rrps" "$lrps" "$(calc "'%.2f' % ($rrps / max($lrps, 0.001))")"

echo "== corpus search (whole process) vs kiwix-search on the same $pages pages"
if command -v kiwix-search >/dev/null && command -v zimwriterfs >/dev/null; then
  zim=$WORK/sqlite-docs.zim
  if [ ! -f "$zim" ]; then
    head -c 100 /dev/zero | /usr/bin/python3 -c 'import base64,sys;sys.stdout.buffer.write(base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAMklEQVR42u3OMQEAAAgDoC251Y3gAzQgp9ZKDmBdHXZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2Hw4gNxwd7QAAAABJRU5ErkJggg=="))' > "$SRC/favicon.png"
    zimwriterfs --welcome=index.html --illustration=favicon.png --language=eng --title="SQLite documentation" \
      --description="SQLite documentation" --creator=SQLite --publisher=bench --name=sqlite-docs "$SRC" "$zim" > "$WORK/zimwriterfs.log" 2>&1
  fi
  # Both processes per query, in alternating order, 3 rounds of the 20 queries: wall time and the
  # child's CPU time (rusage: user + system) of every run, medians of each. Wall time is at the
  # mercy of other work on the machine; CPU time much less so.
  read -r mc mk cc ck < <(/usr/bin/python3 - "$bin/corpus" "$home" "$zim" "$queries" <<'PY'
import os, statistics, sys, time
corpus, home, zim, queries = sys.argv[1:5]
qs = [q for q in open(queries).read().splitlines() if q]
runs = {"corpus": ([], []), "kiwix": ([], [])}
devnull = os.open(os.devnull, os.O_WRONLY)
def run(name, argv):
    t0 = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os.dup2(devnull, 1); os.dup2(devnull, 2); os.execvp(argv[0], argv)
    _, status, ru = os.wait4(pid, 0)
    runs[name][0].append((time.perf_counter_ns() - t0) / 1e6)
    runs[name][1].append((ru.ru_utime + ru.ru_stime) * 1000)
    if os.waitstatus_to_exitcode(status) != 0: sys.exit(f"{argv[0]} exited {status} for {argv[-1]!r}")
i = 0
for _ in range(3):
    for q in qs:
        pair = [("corpus", [corpus, "--home", home, "search", q, "-k", "10"]), ("kiwix", ["kiwix-search", zim, q])]
        for name, argv in (pair if i % 2 == 0 else pair[::-1]): run(name, argv)
        i += 1
m = lambda xs: "%.2f" % statistics.median(xs)
print(m(runs["corpus"][0]), m(runs["kiwix"][0]), m(runs["corpus"][1]), m(runs["kiwix"][1]))
PY
)
  echo "corpus search median ${mc} ms wall, ${cc} ms CPU; kiwix-search median ${mk} ms wall, ${ck} ms CPU (60 runs each, interleaved)"
  printf 'RESULT\tcorpus search process CPU time (median)\t%s\tms\t%s\t%s\t<= 1x\n' "$cc" "$ck" "$(/usr/bin/python3 -c "print('%.2f' % ($cc / $ck))")"
  printf 'RESULT\tcorpus search process (median)\t%s\tms\t%s\t%s\t<= 1x\n' "$mc" "$mk" "$(/usr/bin/python3 -c "print('%.2f' % ($mc / $mk))")"
else
  echo "bench-search: kiwix-search or zimwriterfs missing (apt-get install kiwix-tools zim-tools; scripts/bootstrap.sh does)"
fi
