#!/usr/bin/env bash
# Read benchmark (issue 30): one 1 MB Markdown document (headings, paragraphs), published and
# installed with the model-free embedder, read as `corpus read` reads it: its first page and the
# whole of it, locally (the engine in one process) and remotely (`corpusd serve --search`, GET
# /v1/read), each beside a plain `sqlite3` query of its passages in order on the installed pack
# (a whole sqlite3 process, as a script would run it). Ratios are ours over sqlite3's; no goal.
# Usage: scripts/bench-read.sh [RUNS]   (work files under .bench/read, reused)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
RUNS=${1:-15}
WORK=$PWD/.bench/read
mkdir -p "$WORK"

bin="$(scripts/release-products.sh corpus corpusd corpus-bench)"
[ -f "$WORK/keys/bench.key" ] || "$bin/corpusd" keygen --out "$WORK/keys" --name bench >/dev/null
. scripts/loopback-serving.sh

# The document: 1 MiB of Markdown, 16 chapters of paragraphs of 60 to 140 words (seeded).
tree=$WORK/tree
if [ ! -f "$tree/public/catalog.json" ]; then
  rm -rf "$tree"; mkdir -p "$tree/catalog/book"
  /usr/bin/python3 - "$tree/catalog" <<'PY'
import json, random, sys
root = sys.argv[1]
rng = random.Random(30)
words = ("tide harbour keel lantern gull rope ebb flood moon shoal pier brine cove spray tiller mast dune reef squall anchor "
         "current beacon channel drift estuary fathom gale hull inlet jetty knot lagoon the a of and to in with under over").split()
out, size, chapter = ["# The long passage\n"], 0, 0
while size < 1 << 20:
    if size >= chapter * (1 << 16):
        chapter += 1
        out.append(f"\n## Chapter {chapter}\n")
    para = " ".join(rng.choice(words) for _ in range(rng.randint(60, 140))).capitalize() + "."
    out.append("\n" + para + "\n")
    size += len(para) + 2
open(root + "/book/long.md", "w").write("".join(out))
json.dump({"id": "bench", "title": "bench", "corpora": [{"id": "long-read", "version": "1", "title": "One long document",
  "description": "bench", "language": "en", "license": "CC0-1.0", "source": "book", "access": "free"}]},
  open(root + "/catalog.json", "w"))
PY
  "$bin/corpusd" publish "$tree/catalog" --out "$tree/public" --key "$WORK/keys/bench.key" --quiet
fi
home=$WORK/home
install_home "$tree/public" "$WORK/keys/bench.pub" "$home" long-read

port=$(freeport)
"$bin/corpusd" serve "$tree/public" --listen "127.0.0.1:$port" --quiet --search "$home" & spid=$!
trap 'kill $spid 2>/dev/null || true' EXIT
waitup "$port"
"$bin/corpus-bench" read --home "$home" --corpus long-read --document long.md --url "http://127.0.0.1:$port" --runs "$RUNS" | tee "$WORK/read.txt"
kill $spid; wait $spid 2>/dev/null || true

awk -F= '{ v[$1] = $2 }
  END {
    f = v["read_sqlite3_passages_in_order_ms"]; c = v["read_document_characters"]; p = v["read_document_pages"]
    if (f == "" || f <= 0) exit 1
    split("local_first_page local_whole remote_first_page remote_whole", k, " ")
    split("first page, local|whole, local|first page, remote|whole, remote", label, "|")
    for (i = 1; i <= 4; i++)
      printf "RESULT\tread a 1 MB document (%d chars, %d pages): %s, vs sqlite3 passages in order\t%.2f\tms\t%.2f\t%.2f\t-\n", c, p, label[i], v["read_" k[i] "_ms"], f, v["read_" k[i] "_ms"] / f
  }' "$WORK/read.txt"
