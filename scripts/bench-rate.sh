#!/usr/bin/env bash
# Bandwidth cap (issue 35's Done-when): `corpus --limit-rate 2M install` of a corpus whose bundle is
# 20 MiB, served by `corpusd serve` on loopback (which alone moves it in well under a second),
# judged on the whole command: it must take 10 s ± 10 %. "2M" is curl's --limit-rate syntax, whose
# suffixes are 1024 based (curl(1)): 2 × 1024 × 1024 B/s, so 20 MiB (20 × 1024 × 1024 B) takes 10 s.
# The bundle is generated to 20 MiB within 1 %; the goal is its size at the cap. Each capped run is
# reported with its download phase (first download progress line to the verify line), the rest of
# the command, and the load average when it ran; the median run is judged. The corpus and its tree
# are built once under .bench/rate; each run uses a fresh --home.
# Usage: scripts/bench-rate.sh   (RATE_RUNS=5 for more runs; CORPUS_BIN=.build/debug for a quick check)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

# CORPUS_BIN: a folder holding corpus and corpusd to use instead of the release build (a quick check).
bin="${CORPUS_BIN:-$(scripts/release-products.sh corpus corpusd)}"
work=.bench/rate
target=$((20 * 1024 * 1024))
cap=$((2 * 1024 * 1024))
runs=${RATE_RUNS:-3}

bundle_size() { # the bundle size the published catalog names
  python3 - "$work/public" <<'PY'
import json, sys
tree = sys.argv[1]
pointer = json.load(open(f"{tree}/catalog.json"))
print(json.load(open(f"{tree}/{pointer['path']}"))["corpora"][0]["bundle"]["size"])
PY
}

# Text that deflate cannot shrink much and FTS indexes cheaply: one long token per line, `lines`
# lines in 14 files; then the corpus published.
generate() {
  rm -rf "$work/catalog/docs" "$work/public"
  mkdir -p "$work/catalog/docs"
  python3 - "$work/catalog/docs" "$1" <<'PY'
import base64, os, sys
folder, lines = sys.argv[1], int(sys.argv[2])
for i in range(14):
    n = lines // 14 + (1 if i < lines % 14 else 0)
    with open(f"{folder}/part-{i:02d}.txt", "w") as f:
        f.write(f"Part {i}\n\n" + "\n".join(base64.b64encode(os.urandom(57)).decode() for _ in range(n)) + "\n")
PY
  "$bin/corpusd" publish "$work/catalog" --out "$work/public" --key "$work/keys/bench.key" >/dev/null
}

if [ ! -f "$work/public/catalog.json" ] || [ "$(cat "$work/target" 2>/dev/null)" != "$target" ]; then
  rm -rf "$work"
  mkdir -p "$work/catalog" "$work/keys"
  cat > "$work/catalog/catalog.json" <<'JSON'
{"id": "bench-rate", "title": "Bandwidth cap bench", "corpora": [
  {"id": "noise", "version": "1", "title": "Noise", "source": "docs", "access": "free", "index": "bundle"}]}
JSON
  "$bin/corpusd" keygen --out "$work/keys" --name bench >/dev/null
  # The bundle grows in proportion to the lines: measure once, then scale to the target.
  lines=126000
  for _ in 1 2 3; do
    generate "$lines"
    size=$(bundle_size)
    awk -v s="$size" -v t="$target" 'BEGIN { exit !(s > 0.99 * t && s < 1.01 * t) }' && break
    lines=$(awk -v l="$lines" -v s="$size" -v t="$target" 'BEGIN { printf "%d", l * t / s }')
  done
  echo "$target" > "$work/target"
fi
size=$(bundle_size)
expected=$(awk -v s="$size" -v c="$cap" 'BEGIN { printf "%.2f", s / c }')
echo "bundle: $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.2f", s / 1048576 }') MiB); at 2M = $cap B/s it takes ${expected} s"
awk -v s="$size" -v t="$target" 'BEGIN { exit !(s > 0.99 * t && s < 1.01 * t) }' || { echo "bench-rate: the bundle is not 20 MiB within 1 %"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/corpusd" serve "$work/public" --listen "127.0.0.1:$port" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/catalog.json" >/dev/null && break; sleep 0.1; done

run() { # run [corpus flags...]: a fresh home, remote add, timed install; prints "TOTAL DOWNLOAD LOAD1"
  local home; home=$(mktemp -d)
  "$bin/corpus" --home "$home" remote add bench "http://127.0.0.1:$port" --trust "$work/keys/bench.pub" >/dev/null
  # The whole command is timed; the download phase (first progress line of the download to the
  # verify line, --json progress on stderr) is reported beside it.
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
print(f"{total:.2f} {(verify - first) if first and verify else 0:.2f} {open('/proc/loadavg').read().split()[0]}")
PY
  rm -rf "$home"
}

read -r uncapped uncapped_download uncapped_load <<< "$(run)"
echo "uncapped: ${uncapped}s whole, download ${uncapped_download}s, load ${uncapped_load}"
totals=()
for i in $(seq "$runs"); do
  read -r total download load <<< "$(run --limit-rate 2M)"
  echo "capped run $i: ${total}s whole (${expected}s expected), download ${download}s, rest $(awk -v t="$total" -v d="$download" 'BEGIN { printf "%.2f", t - d }')s, load ${load}"
  printf 'RESULT\tinstall 20 MiB with --limit-rate 2M, run %d (whole command; load %s)\t%.2f\ts\t%.2f\t%.3f\t-\n' \
    "$i" "$load" "$total" "$expected" "$(awk -v t="$total" -v x="$expected" 'BEGIN { printf "%.3f", t / x }')"
  totals+=("$total")
done
median=$(printf '%s\n' "${totals[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
awk -v m="$median" -v x="$expected" -v u="$uncapped" -v n="$runs" 'BEGIN {
  printf "RESULT\tinstall 20 MiB with --limit-rate 2M (whole command, median of %d)\t%.2f\ts\t%.2f\t%.3f\t0.9x-1.1x\n", n, m, x, m / x
  printf "RESULT\tinstall 20 MiB uncapped (loopback, whole command)\t%.2f\ts\t-\t-\t-\n", u
}'
ok=$(awk -v m="$median" -v x="$expected" 'BEGIN { print (m >= 0.9 * x && m <= 1.1 * x) ? 1 : 0 }')
[ "$ok" = 1 ] || { echo "bench-rate: the install took ${median}s (median of $runs), outside ${expected}s ± 10 %"; exit 1; }
