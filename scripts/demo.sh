#!/usr/bin/env bash
# The main job, fully local: publish the sample catalog, serve it, install, search, unlock the
# entitled corpus with a token. Safe to run again: it reuses the demo key and home folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
unset CORPUS_TOKEN CORPUS_HOME

bin="$(scripts/release-build.sh --show-bin-path)"
corpusd="$bin/corpusd"
corpus="$bin/corpus"
demo="$PWD/.demo"
keys="$demo/keys" public="$demo/public" home="$demo/home"
mkdir -p "$demo"

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
run() { printf '$ %s\n' "$*" | sed "s|$bin/||g; s|$PWD/||g"; "$@"; }

section "0. The sentence encoder (all-MiniLM-L6-v2), fetched once"
if scripts/fetch-model.sh; then
  echo "the sample corpora are embedded with all-MiniLM-L6-v2; the model is published beside them"
else
  echo "note: the model could not be fetched; the sample corpora fall back to the hashing embedder"
  echo "      (words, not meaning). Fetch it later with scripts/fetch-model.sh and run make demo again."
fi

section "1. A signing key"
if [ -f "$keys/demo.key" ]; then
  echo "reusing $keys/demo.key"
else
  run "$corpusd" keygen --out "$keys" --name demo
fi

section "2. Publish catalog/ as a static tree"
t=$(date +%s%N)
rc=0
run "$corpusd" publish catalog --out "$public" --key "$keys/demo.key" --expires 30d || rc=$?
if [ "$rc" -eq 2 ]; then
  # A sample corpus changed since the last demo under the same version (docs/ is edited with the
  # code; the model may have arrived since): a published version names one content for good, so
  # the demo starts its tree and home afresh rather than bump the sample's versions.
  echo "the sample catalog changed since the last demo run: starting the demo's tree and home afresh"
  rm -rf "$public" "$home"
  run "$corpusd" publish catalog --out "$public" --key "$keys/demo.key" --expires 30d
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
echo "published in $(ms_since "$t") ms: $(ls "$public/bundles" | wc -l) bundles, catalog version $(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["version"])' "$public/catalog.json")"

section "3. Serve it on a free loopback port"
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
"$corpusd" serve "$public" --listen "127.0.0.1:$port" --entitlement-pub "$keys/demo.pub" > "$demo/serve.log" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fs "$url/healthz" >/dev/null && break; sleep 0.1; done
echo "corpusd serve is up at $url (log: $demo/serve.log)"

section "4. Pin the catalog's key and browse"
run "$corpus" --home "$home" remote add demo "$url" --trust "$keys/demo.pub"
run "$corpus" --home "$home" catalog

section "5. Install the free corpora"
t=$(date +%s%N)
run "$corpus" --home "$home" install docs field-guide-tides sourdough-handbook
echo "installed in $(ms_since "$t") ms"
run "$corpus" --home "$home" list
if [ -d "$home/embedders" ]; then
  echo "the embedder model came through the catalog, verified against the pinned key:"
  for d in "$home"/embedders/*/*/; do echo "  ${d#$PWD/}  ($(du -sh "$d" | cut -f1))"; done
fi

section "6. Search every installed corpus at once (BM25 + vectors, fused by RRF)"
for q in "rotate the signing key" "when is high water at springs" "what does a hungry starter smell like"; do
  run "$corpus" --home "$home" search "$q" -k 3
  echo
done

section "6b. A question answered by meaning rather than shared words"
q="my bread came out flat like a pancake"
echo "words only (BM25) land on pages that happen to say \"came\" or \"like\":"
run "$corpus" --home "$home" search "$q" -k 2 --lexical-only
echo
echo "with the vector channel, the troubleshooting passage about a flat loaf that spread comes first"
echo "(with the MiniLM model; the model-free fallback embedder matches words, not meaning):"
run "$corpus" --home "$home" search "$q" -k 2

section "7. The entitled corpus is locked without a token"
# A second run starts this part from the same place as the first: no token, not installed.
"$corpus" --home "$home" remove orbital-mechanics-primer >/dev/null 2>&1 || true
"$corpus" --home "$home" logout >/dev/null
run "$corpus" --home "$home" show orbital-mechanics-primer
set +e
run "$corpus" --home "$home" install orbital-mechanics-primer
echo "(exit code $?: entitlement refused)"
set -e

section "8. Issue a demo token for tier \"pro\" and unlock it"
catalog_id=$(python3 -c 'import json;print(json.load(open("catalog/catalog.json"))["id"])')
token=$("$corpusd" token issue --key "$keys/demo.key" --sub demo-user --tier pro --aud "$catalog_id" --expires 1d --import-limit 3)
echo "token: ${token:0:24}… (stored in the home folder, never printed again)"
printf '$ corpus --home %s login %s…\n' "${home#$PWD/}" "${token:0:12}"; "$corpus" --home "$home" login "$token"
run "$corpus" --home "$home" install orbital-mechanics-primer
run "$corpus" --home "$home" search "transfer orbit between two circular orbits" -k 2

section "9. Import-limit use and freshness"
run "$corpus" --home "$home" status

section "Where everything lives"
cat <<INFO
  signing key      $keys/demo.key (public: $keys/demo.pub)
  published tree   $public  (serve it with any static host; see docs/operations.md)
  client home      $home   (try: $corpus --home $home search "sextant")
  docs             docs/ — architecture, formats, CLI reference, operations, threat model
Stopping the server.
INFO
