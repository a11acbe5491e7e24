#!/usr/bin/env bash
# Catalog scale benchmark (issue 31): what a client fetches from catalogs of 1,000, 10,000 and
# 100,000 one-book corpora, with catalog parts (this release) and with today's flat catalog
# (`--flat`: the same tree without parts, so the client reads catalogs/<N>.json), side by side.
# Trees are real and signed (`corpus-bench catalog-tree`; only the corpora the bench installs
# have real bundles), served by `corpusd serve` on loopback, read by the real `corpus` (release).
# Bytes and requests are corpusd's access log (bundles excluded: they are the same either way).
# Goals: a no-op refresh <= 1 KB and a one-installed-change refresh <= 16 KB at every size; the
# 100,000 figures within 2x of the 1,000 ones.
# Usage: scripts/bench-catalog.sh [SIZES...]   (default: 1000 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

bin="${CATALOG_BENCH_BIN:-$(scripts/release-products.sh corpus-bench corpus corpusd)}"
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
work=.bench/catalog
mkdir -p "$work"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"

server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

# Sums the access-log lines after line $1 of $log: "<bytes> <requests>", bundles left out.
since() {
  sleep 0.3 # the access log is flushed every 100 ms
  tail -n +"$(( $1 + 1 ))" "$log" | awk '/^127\.0\.0\.1 "/ && !/"GET \/bundles\// { b += $5; n++ } END { printf "%d %d\n", b, n }'
}
lines() { wc -l < "$log"; }

# Runs `corpus` under /usr/bin/time; sets $rss_kb.
corpus() {
  /usr/bin/time -f %M -o "$work/time.out" "$bin/corpus" --home "$home" "$@" > "$work/corpus.out" 2> "$work/corpus.err" || {
    echo "corpus $* failed: $(cat "$work/corpus.err")" >&2; return 1; }
  rss_kb=$(tail -1 "$work/time.out")
}

# A flat catalog over the client's 32 MiB cap (CatalogFetcher.maxCatalogBytes; 100,000 entries
# make about 69 MB) is refused by every client, so no flat client run is possible: the flat figures
# of a refresh that must fetch the catalog are then its size (the least such a client would
# fetch), the others "-", and only the publish time is measured. CATALOG_BENCH_FLAT_CAP=<bytes>
# takes that path at a small size (a check of the script).
flat_client_cap=${CATALOG_BENCH_FLAT_CAP:-33554432}
flat_refused() { [ "$mode" = flat ] && [ "$(stat -c %s "$tree/catalogs/1.json")" -gt "$flat_client_cap" ]; }
flat_refused_figures() {
  local size; size=$(stat -c %s "$tree/catalogs/1.json")
  echo "note: flat $n: catalog of $size bytes is over the client's cap; flat figures are its size" >&2
  fig[flat,$n,install]="$size -"; fig[flat,$n,noop]="- -"; fig[flat,$n,change1]="$size -"; fig[flat,$n,change100]="$size -"
  fig[flat,$n,rss]=-; fig[flat,$n,install_rss]=-
  fig[flat,$n,browse]="- -"; fig[flat,$n,browse2]="- -"
  fig[flat,$n,browse_first]=-; fig[flat,$n,browse_s]=-; fig[flat,$n,browse_rss]=-; fig[flat,$n,browse_rows]=-
  fig[flat,$n,publish1]=$("$bin/corpus-bench" catalog-tree --out "$tree" --count "$n" --change 1 --flat | awk '/^publish_seconds/ { print $2 }')
}
# Part counts and mean sizes of the tree just generated (docs/format.md works the 10^6 point out from them).
part_sizes() { awk -v n="$n" '/^part_sizes/ { printf "PARTS\t%s entries: %s nodes of %s B, %s leaves of %s B, depth %s\n", n, $2, $3, $4, $5, $6 }' "$work/gen.out"; }

# Issue 31 item 3: the first `corpus catalog` from a new home, listing parts against the flat
# catalog: bytes and requests (access log), seconds to the first row on stdout and to the end,
# peak RSS, lines printed. Sets fig[$1,$2,browse] ("bytes requests"), browse_first, browse_s, browse_rss,
# browse_rows. Uses $tree, $port and $log of the tree being served.
browse_figures() {
  local mode=$1 n=$2 h l t0 t1
  h=$(mktemp -d "$work/home-XXXXXX")
  "$bin/corpus" --home "$h" remote add main "http://127.0.0.1:$port" --trust "$tree/keys/root.pub" > /dev/null
  l=$(lines); t0=$(date +%s.%N)
  CORPUS_CATALOG_DEADLINE=600 /usr/bin/time -f %M -o "$work/browse-time.out" "$bin/corpus" --home "$h" catalog 2> "$work/browse.err" \
    | { IFS= read -r _ && date +%s.%N > "$work/browse-first.ts"; wc -l > "$work/browse-rows.out"; }
  t1=$(date +%s.%N)
  read -r b r <<< "$(since "$l")"; fig[$mode,$n,browse]="$b $r"
  fig[$mode,$n,browse_first]=$(echo "$(cat "$work/browse-first.ts") - $t0" | bc)
  fig[$mode,$n,browse_s]=$(echo "$t1 - $t0" | bc)
  fig[$mode,$n,browse_rss]=$(tail -1 "$work/browse-time.out")
  fig[$mode,$n,browse_rows]=$(( $(cat "$work/browse-rows.out") + 1 ))
  # The second, after one more corpus changed: what browsing costs once the listing is held.
  "$bin/corpus-bench" catalog-tree --out "$tree" --count "$n" --change 1 $([ "$mode" = flat ] && echo --flat) > /dev/null
  l=$(lines); CORPUS_CATALOG_DEADLINE=600 "$bin/corpus" --home "$h" catalog > /dev/null 2>> "$work/browse.err"
  read -r b r <<< "$(since "$l")"; fig[$mode,$n,browse2]="$b $r"
}
browse_results() {
  local n=$1 what pb pr fb fr
  for what in browse browse2; do
    read -r pb pr <<< "${fig[parts,$n,$what]}"; read -r fb fr <<< "${fig[flat,$n,$what]}"
    printf 'RESULT\tcatalog %s: %s bytes\t%s\tB\t%s\t%s\t-\n' "$n" "$what" "$pb" "$fb" "$(ratio "$pb" "$fb")"
    printf 'RESULT\tcatalog %s: %s requests\t%s\trequests\t%s\t%s\t-\n' "$n" "$what" "$pr" "$fr" "$(ratio "$pr" "$fr")"
  done
  for what in browse_first browse_s browse_rss; do
    printf 'RESULT\tcatalog %s: %s (%s lines; flat %s)\t%s\t%s\t%s\t%s\t%s\n' "$n" "$what" "${fig[parts,$n,browse_rows]}" "${fig[flat,$n,browse_rows]}" \
      "${fig[parts,$n,$what]}" "$([ "$what" = browse_rss ] && echo KB || echo s)" "${fig[flat,$n,$what]}" \
      "$(ratio "${fig[parts,$n,$what]}" "${fig[flat,$n,$what]}")" "$([ "$what" = browse_first ] && echo "<=1" || echo -)"
  done
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b + 0 > 0) printf "%.4f", a / b; else print "-" }'; }
declare -A fig
for n in "${sizes[@]}"; do
  for mode in parts flat; do
    tree="$work/$mode-$n"
    rm -rf "$tree" "$tree.key"
    flag=(); [ "$mode" = flat ] && flag=(--flat)
    "$bin/corpus-bench" catalog-tree --out "$tree" --count "$n" "${flag[@]}" > "$work/gen.out"
    part_sizes
    if flat_refused; then flat_refused_figures; continue; fi
    port=$(( 20000 + RANDOM % 20000 ))
    log="$work/serve-$mode-$n.log"
    "$bin/corpusd" serve "$tree" --listen "127.0.0.1:$port" 2> "$log" &
    server_pid=$!
    for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/catalog.json" && break; sleep 0.1; done
    home=$(mktemp -d "$work/home-XXXXXX")
    corpus remote add main "http://127.0.0.1:$port" --trust "$tree/keys/root.pub"

    l=$(lines); t0=$(date +%s.%N); corpus install book-0; t1=$(date +%s.%N)
    read -r b r <<< "$(since "$l")"; fig[$mode,$n,install]="$b $r"; fig[$mode,$n,install_rss]=$rss_kb
    l=$(lines); corpus sync; read -r b r <<< "$(since "$l")"; fig[$mode,$n,noop]="$b $r"
    fig[$mode,$n,publish1]=$("$bin/corpus-bench" catalog-tree --out "$tree" --count "$n" --change 1 "${flag[@]}" | awk '/^publish_seconds/ { print $2 }')
    l=$(lines); corpus sync; read -r b r <<< "$(since "$l")"; fig[$mode,$n,change1]="$b $r"; fig[$mode,$n,rss]=$rss_kb
    "$bin/corpus-bench" catalog-tree --out "$tree" --count "$n" --change 100 "${flag[@]}" > /dev/null
    l=$(lines); corpus sync; read -r b r <<< "$(since "$l")"; fig[$mode,$n,change100]="$b $r"
    [ "$n" -le "${CATALOG_BENCH_LISTING_MAX:-100000}" ] && browse_figures "$mode" "$n"
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  done
  [ "$n" -le "${CATALOG_BENCH_LISTING_MAX:-100000}" ] && browse_results "$n"
  for what in noop change1 change100 install; do
    read -r pb pr <<< "${fig[parts,$n,$what]}"; read -r fb fr <<< "${fig[flat,$n,$what]}"
    goal=-; [ "$what" = noop ] && goal="<=1024"; [ "$what" = change1 ] && goal="<=16384"
    printf 'RESULT\tcatalog %s: %s bytes\t%s\tB\t%s\t%s\t%s\n' "$n" "$what" "$pb" "$fb" "$(ratio "$pb" "$fb")" "$goal"
    printf 'RESULT\tcatalog %s: %s requests\t%s\trequests\t%s\t%s\t-\n' "$n" "$what" "$pr" "$fr" "$(ratio "$pr" "$fr")"
  done
  printf 'RESULT\tcatalog %s: client peak RSS (sync after one change)\t%s\tKB\t%s\t%s\t-\n' "$n" "${fig[parts,$n,rss]}" "${fig[flat,$n,rss]}" "$(ratio "${fig[parts,$n,rss]}" "${fig[flat,$n,rss]}")"
  printf 'RESULT\tcatalog %s: catalog write after one change\t%s\ts\t%s\t%s\t-\n' "$n" "${fig[parts,$n,publish1]}" "${fig[flat,$n,publish1]}" "$(ratio "${fig[parts,$n,publish1]}" "${fig[flat,$n,publish1]}")"
done
first=${sizes[0]}; last=${sizes[${#sizes[@]}-1]}
# The figures that must not grow with the catalog, largest size against smallest (goal: within 2x).
# A first whole `corpus catalog` fetches every listing row once, so its bytes grow with the catalog
# by nature; its memory must not, and its first row has the absolute goal of one second.
if [ "$first" != "$last" ]; then
  vs() { printf 'RESULT\tcatalog %s vs %s: %s\t%s\t%s\t%s\t%s\t%s\n' "$last" "$first" "$1" "$2" "$3" "$4" "$(ratio "$2" "$4")" "${5:-<=2x}"; }
  for what in noop change1 change100 install; do
    read -r ab ar <<< "${fig[parts,$last,$what]}"; read -r bb br <<< "${fig[parts,$first,$what]}"
    vs "$what bytes" "$ab" B "$bb"
    vs "$what requests" "$ar" requests "$br"
  done
  vs "client peak RSS (sync after one change)" "${fig[parts,$last,rss]}" KB "${fig[parts,$first,rss]}"
  vs "catalog write after one change" "${fig[parts,$last,publish1]}" s "${fig[parts,$first,publish1]}"
  if [ "$last" -le "${CATALOG_BENCH_LISTING_MAX:-100000}" ]; then
    # Its goal is absolute (the first row within a second at every size: the browse_first lines).
    vs "first catalog: first row" "${fig[parts,$last,browse_first]}" s "${fig[parts,$first,browse_first]}" -
    vs "first catalog: peak RSS" "${fig[parts,$last,browse_rss]}" KB "${fig[parts,$first,browse_rss]}"
  fi
fi
