#!/usr/bin/env bash
# Bandwidth cap: `corpus --limit-rate 2M install` of a corpus whose bundle is 20 MiB, served by
# `corpusd serve` on loopback (which alone moves it in well under a second). With the cap the
# download must take 20 MiB / 2 MiB/s = 10 s, within 10 % (docs/client.md "Bandwidth limit"); the
# whole command adds the install's local work (verify, unpack, integrity check), measured by the
# uncapped run and reported beside it. Also reported: the uncapped install and the capped rate. The corpus and
# its tree are built once under .bench/rate; each run uses a fresh --home.
# Usage: scripts/bench-rate.sh   (CORPUS_BIN=.build/debug scripts/bench-rate.sh for a quick check)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

# CORPUS_BIN: a folder holding corpus and corpusd to use instead of the release build (a quick check).
bin="${CORPUS_BIN:-$(scripts/release-products.sh corpus corpusd)}"
work=.bench/rate
target=$((20 * 1024 * 1024))

bundle_size() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["corpora"][0]["bundle"]["size"])' "$1"; }

if [ ! -f "$work/public/catalog.json" ]; then
  rm -rf "$work"
  mkdir -p "$work/catalog/docs" "$work/keys"
  # Text that deflate cannot shrink much and FTS indexes cheaply: one long token per line.
  python3 - "$work/catalog/docs" <<'PY'
import base64, os, sys
folder = sys.argv[1]
for i in range(14):
    lines = [base64.b64encode(os.urandom(57)).decode() for _ in range(9000)]
    with open(f"{folder}/part-{i:02d}.txt", "w") as f:
        f.write(f"Part {i}\n\n" + "\n".join(lines) + "\n")
PY
  cat > "$work/catalog/catalog.json" <<'JSON'
{"id": "bench-rate", "title": "Bandwidth cap bench", "corpora": [
  {"id": "noise", "version": "1", "title": "Noise", "source": "docs", "access": "free", "index": "bundle"}]}
JSON
  "$bin/corpusd" keygen --out "$work/keys" --name bench >/dev/null
  "$bin/corpusd" publish "$work/catalog" --out "$work/public" --key "$work/keys/bench.key" >/dev/null
fi
size=$(bundle_size "$work/public/catalogs/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$work/public/catalog.json").json")
echo "bundle: $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }') MiB)"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/corpusd" serve "$work/public" --listen "127.0.0.1:$port" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/catalog.json" >/dev/null && break; sleep 0.1; done

run() { # run [corpus flags...]: a fresh home, remote add, timed install; prints "TOTAL DOWNLOAD" seconds
  local home; home=$(mktemp -d)
  "$bin/corpus" --home "$home" remote add bench "http://127.0.0.1:$port" --trust "$work/keys/bench.pub" >/dev/null
  # The download phase is from the first progress line of the download to the verify line (--json
  # progress on stderr), so the local work after it (verify, unpack, integrity check) is told apart.
  python3 - "$bin/corpus" --home "$home" --json "$@" install noise <<'PY'
import json, subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
first = verify = None
for line in p.stderr:
    try:
        event = json.loads(line).get("event")
    except ValueError:
        continue
    now = time.monotonic()
    if event == "download" and first is None: first = now
    if event == "verify" and verify is None: verify = now
if p.wait() != 0: sys.exit("install failed")
total = time.monotonic() - t0
print(f"{total:.2f} {(verify - first) if first and verify else 0:.2f}")
PY
  rm -rf "$home"
}

read -r uncapped uncapped_download <<< "$(run)"
read -r capped capped_download <<< "$(run --limit-rate 2M)"
expected=$(awk -v s="$size" 'BEGIN { printf "%.2f", s / (2 * 1048576) }')
echo "uncapped ${uncapped}s (download ${uncapped_download}s), capped ${capped}s (download ${capped_download}s), expected ${expected}s for $size bytes at 2 MiB/s"
# The install's own work (everything but the download) is what the uncapped run spends beyond its
# download; an exact cap makes the capped install take the expected download time plus that.
local_work=$(awk -v u="$uncapped" -v d="$uncapped_download" 'BEGIN { printf "%.2f", u - d }')
awk -v c="$capped" -v cd="$capped_download" -v x="$expected" -v u="$uncapped" -v w="$local_work" -v s="$size" 'BEGIN {
  printf "RESULT\tinstall 20 MiB with --limit-rate 2M (whole command)\t%.2f\ts\t%.2f\t%.3f\t0.9x-1.1x\n", c, x + w, c / (x + w)
  printf "RESULT\tdownload phase of it\t%.2f\ts\t%.2f\t%.3f\t0.9x-1.1x\n", cd, x, cd / x
  printf "RESULT\tinstall 20 MiB uncapped (loopback)\t%.2f\ts\t-\t-\t-\n", u
  printf "RESULT\taverage download rate under --limit-rate 2M\t%.2f\tMiB/s\t2.00\t%.3f\t-\n", s / cd / 1048576, s / cd / 1048576 / 2
}'
ok=$(awk -v cd="$capped_download" -v x="$expected" 'BEGIN { print (cd >= 0.9 * x && cd <= 1.1 * x) ? 1 : 0 }')
[ "$ok" = 1 ] || { echo "bench-rate: the download took ${capped_download}s, outside ${expected}s ± 10 %"; exit 1; }
