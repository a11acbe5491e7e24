#!/bin/bash
# A real `corpusd publish` of N generated one-file corpora (one folder and one Markdown file each),
# then two republishes after one corpus changed, each timed with its peak RSS. Not part of
# `make bench` (the first publish of 100,000 corpora takes about 20 minutes); docs/publishing.md
# "What of a real corpusd publish ... is still proportional to the catalog" cites its figures.
#
# Usage: scripts/bench-publish.sh N [WORK_DIR]   (uses /usr/bin/python3 for the generator)
set -euo pipefail
N=${1:?usage: scripts/bench-publish.sh N [WORK_DIR]}
W=${2:-.bench/publish-$N}
bin=$(scripts/release-products.sh corpusd)
rm -rf "$W"; mkdir -p "$W/catalog"
/usr/bin/python3 - "$W" "$N" <<'PY'
import json, os, sys
w, n = sys.argv[1], int(sys.argv[2])
corpora = []
for i in range(n):
    d = f"{w}/catalog/c{i}"
    os.makedirs(d)
    with open(f"{d}/notes.md", "w") as f:
        f.write(f"# Book {i}\n\nThe text of book number {i}: tides and harbors, chapter one.\n")
    corpora.append({"id": f"book-{i}", "version": "1", "title": f"Book number {i}",
                    "description": f"One generated book, number {i}.", "source": f"c{i}", "access": "free"})
json.dump({"id": "generated", "title": f"Generated catalog of {n}", "corpora": corpora}, open(f"{w}/catalog/catalog.json", "w"))
PY
"$bin/corpusd" keygen --out "$W" --name root > /dev/null
/usr/bin/time -f "RESULT	publish $N: first publish	%e	s	%M	KB" "$bin/corpusd" publish "$W/catalog" --out "$W/public" --key "$W/root.key" > "$W/first.out" 2> "$W/first.err"
tail -1 "$W/first.err"
for round in 2 3; do
  /usr/bin/python3 - "$W" "$round" <<'PY'
import json, sys
w, r = sys.argv[1], sys.argv[2]
p = f"{w}/catalog/catalog.json"; c = json.load(open(p))
c["corpora"][7]["version"] = r
json.dump(c, open(p, "w"))
open(f"{w}/catalog/c7/notes.md", "a").write(f"\nRound {r}.\n")
PY
  /usr/bin/time -f "RESULT	publish $N: republish after one change	%e	s	%M	KB" "$bin/corpusd" publish "$W/catalog" --out "$W/public" --key "$W/root.key" > "$W/r$round.out" 2> "$W/r$round.err"
  tail -1 "$W/r$round.err"
done
