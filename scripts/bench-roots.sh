#!/usr/bin/env bash
# Root-rotation benchmark: a client's first refresh (`corpus catalog`, the whole process, release
# build) of a tree whose root has been rotated 32 times (a 2-of-3 root signed over by the ceremony
# commands, `corpusd root draft/sign/publish`, each time), as a ratio to the same refresh of a tree
# that was never rotated. Both trees are served by `corpusd serve` on loopback; each run starts
# from a fresh home pinned to root 1. 32 is the most one refresh walks (python-tuf's default).
# Goal: the rotated refresh costs at most 4x the plain one.
# Usage: scripts/bench-roots.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
runs="${1:-9}"
rotations=32

bin="$(scripts/release-products.sh corpus corpusd)"
work=.bench/roots
rm -rf "$work"
mkdir -p "$work/keys"
d() { "$bin/corpusd" "$@" >/dev/null; }
for k in old r1 r2 r3 cat ts; do d keygen --out "$work/keys" --name "$k"; done
mkdir -p "$work/src/notes"
printf '# Tides\n\nNotes on tide tables for coastal sailors.\n' > "$work/src/notes/tides.md"
cat > "$work/catalog.json" <<JSON
{"id": "bench-roots", "title": "Root rotation bench", "corpora": [
  {"id": "tides", "version": "1", "title": "Tides", "description": "Tide tables", "language": "en",
   "license": "CC0-1.0", "access": "free", "source": "src"}]}
JSON
# Two trees from the same catalog: one stays at root 1, the other migrates to roles and rotates.
d publish "$work" --out "$work/plain" --key "$work/keys/old.key"
cp -a "$work/plain" "$work/rotated"
K="$work/keys"
for i in $(seq 1 $rotations); do
  d root draft --out "$work/draft.json" --from "$work/rotated" --root-key "$K/r1.pub" --root-key "$K/r2.pub" --root-key "$K/r3.pub" \
    --root-threshold 2 --catalog-key "$K/cat.pub" --timestamp-key "$K/ts.pub"
  # Migration (i = 1) needs the old key as well; after that, two of the three root holders.
  [ "$i" = 1 ] && d root sign "$work/draft.json" --key "$K/old.key"
  d root sign "$work/draft.json" --key "$K/r$(( (i % 3) + 1 )).key"
  d root sign "$work/draft.json" --key "$K/r$(( ((i + 1) % 3) + 1 )).key"
  d root publish "$work/draft.json" --out "$work/rotated"
  rm -f "$work/draft.json"*
done
d publish "$work" --out "$work/rotated" --key "$K/cat.key" --timestamp-key "$K/ts.key"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
serve() {
  local p; p=$(port)
  "$bin/corpusd" serve "$1" --listen "127.0.0.1:$p" >"$work/serve-$(basename "$1").log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$p/catalog.json" >/dev/null && break; sleep 0.1; done
  echo "http://127.0.0.1:$p"
}
plain_url=$(serve "$work/plain")
rotated_url=$(serve "$work/rotated")

# One fresh-home refresh, in milliseconds.
refresh_ms() {
  local home="$work/home-$RANDOM$RANDOM"
  "$bin/corpus" --home "$home" remote add main "$1" --trust "$K/old.pub" >/dev/null
  local t0 t1; t0=$(date +%s%N)
  "$bin/corpus" --home "$home" catalog --json >/dev/null
  t1=$(date +%s%N)
  rm -rf "$home"
  echo $(( (t1 - t0) / 1000000 ))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
plain=(); rotated=()
for _ in $(seq "$runs"); do  # alternating, so load drifts hit both alike
  plain+=("$(refresh_ms "$plain_url")")
  rotated+=("$(refresh_ms "$rotated_url")")
done
pm=$(printf '%s\n' "${plain[@]}" | median)
rm_=$(printf '%s\n' "${rotated[@]}" | median)
echo "plain refresh: ${plain[*]} ms (median $pm)"
echo "refresh across $rotations rotations: ${rotated[*]} ms (median $rm_)"
ratio=$(awk -v a="$rm_" -v b="$pm" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
printf 'RESULT\troots: first refresh across %d root rotations\t%s\tms\t%s\t%s\t<=4x\n' "$rotations" "$rm_" "$pm" "$ratio"
