#!/usr/bin/env bash
# Benchmarks `corpusd serve` against nginx on the same published tree, in the same run, with wrk.
# Prints each figure and its ratio to the peer:
#   small file req/s            corpusd / nginx (deploy/nginx.conf, logs off)   goal >= 0.8
#   small file req/s            corpusd / plain nginx at Debian defaults, logs off and on   goal >= 0.9
#                               corpusd / deploy/nginx.conf, logs on   goal >= 0.8
#   1 GiB bundle throughput     corpusd / nginx   goal >= 0.8
#   gated small bundle req/s    corpusd (valid token, verified) / nginx (un-gated)   goal >= 0.5
#   corpusd peak RSS (VmHWM)                      goal <= 64 MiB
# Each case runs ROUNDS times, alternating corpusd and nginx, and keeps each server's best run:
# the CPUs are shared, and the best run is the least disturbed one.
# Usage: scripts/bench-server.sh [DURATION_SECONDS] [ROUNDS]   (work files under .bench/server, reused)
#        BENCH_BIN=DIR uses the corpusd in DIR (no build), e.g. to compare two builds in turn.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
DUR=${1:-5}
ROUNDS=${2:-3}
WORK=$PWD/.bench/server
TREE=$WORK/public
mkdir -p "$WORK" "$TREE/catalogs" "$TREE/bundles" "$TREE/keys"

for tool in wrk nginx curl /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "bench-server: $tool is missing (run scripts/bootstrap.sh)"; exit 1; }
done

if [ -n "${BENCH_BIN:-}" ]; then
  CORPUSD=$BENCH_BIN/corpusd
else
  echo "== release build of corpusd"
  scripts/release-build.sh --product corpusd 2>&1 | grep -E "error|Compiling|Build" | tail -3
  CORPUSD=$PWD/.build/release/corpusd
fi

echo "== tree under $TREE"
[ -f "$WORK/keys/ent.key" ] || "$CORPUSD" keygen --out "$WORK/keys" --name ent >/dev/null
BIG=$WORK/big.bin
[ -f "$BIG" ] && [ "$(stat -c %s "$BIG")" = 1073741824 ] || head -c 1073741824 /dev/urandom > "$BIG"
head -c 4096 /dev/urandom > "$WORK/small-free.bin.new"
[ -f "$WORK/small-free.bin" ] || mv "$WORK/small-free.bin.new" "$WORK/small-free.bin"
[ -f "$WORK/small-gated.bin" ] || head -c 4096 /dev/urandom > "$WORK/small-gated.bin"
rm -f "$WORK/small-free.bin.new"
/usr/bin/python3 - "$WORK" "$TREE" <<'PY'
import hashlib, json, os, shutil, sys, time
work, tree = sys.argv[1], sys.argv[2]
def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
entries = []
for cid, src, access, tier in [("small-free", "small-free.bin", "free", None), ("big-free", "big.bin", "free", None),
                               ("small-gated", "small-gated.bin", "entitled", "gold")]:
    path = os.path.join(work, src)
    cache = path + ".sha256"
    if os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(path):
        digest = open(cache).read().strip()
    else:
        digest = sha(path); open(cache, "w").write(digest)
    dest = os.path.join(tree, "bundles", digest + ".corpus.zip")
    if not os.path.exists(dest):
        os.link(path, dest)
    e = {"id": cid, "version": "1", "title": cid, "description": "bench", "language": "en", "license": "CC0-1.0",
         "access": access, "bundled": False, "bundle": {"path": "bundles/%s.corpus.zip" % digest, "sha256": digest,
         "size": os.path.getsize(path)}, "documents": 1, "passages": 1,
         "embedder": {"id": "hash-uni-bi-384-v1", "dimension": 384, "encoding": "int8"}, "content_digest": "0" * 64}
    if tier: e["tier"] = tier
    entries.append(e)
now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
exp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86400 * 30))
cat = {"format": 1, "id": "bench", "title": "Bench", "version": 1, "issued": now, "expires": exp, "root_version": 1, "corpora": entries}
open(os.path.join(tree, "catalogs", "1.json"), "w").write(json.dumps(cat, sort_keys=True, separators=(",", ":")))
open(os.path.join(tree, "catalog.json"), "w").write(json.dumps({"format": 1, "id": "bench", "path": "catalogs/1.json", "version": 1}))
open(os.path.join(tree, "index.html"), "w").write("<!doctype html><title>bench</title>\n")
for e in entries:
    open(os.path.join(work, e["id"] + ".path"), "w").write(e["bundle"]["path"])
# The same 4 KiB as the gated bundle, outside bundles/: what nginx serves with no gate at all.
plain = os.path.join(tree, "plain-4k.bin")
if not os.path.exists(plain):
    os.link(os.path.join(work, "small-gated.bin"), plain)
PY
SMALL_FREE=/$(cat "$WORK/small-free.path"); BIG_FREE=/$(cat "$WORK/big-free.path"); SMALL_GATED=/$(cat "$WORK/small-gated.path")
TOKEN=$("$CORPUSD" token issue --key "$WORK/keys/ent.key" --sub bench --tier gold --aud bench --expires 1h)

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
C_PORT=$(free_port); N_PORT=$(free_port)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

"$CORPUSD" serve "$TREE" --listen "127.0.0.1:$C_PORT" --entitlement-pub "$WORK/keys/ent.pub" --threads 2 --quiet &
C_PID=$!; PIDS+=("$C_PID")
# The same server at its default settings, access log on (to a file, as a service's journal would take it).
CL_PORT=$(free_port)
"$CORPUSD" serve "$TREE" --listen "127.0.0.1:$CL_PORT" --entitlement-pub "$WORK/keys/ent.pub" 2>"$WORK/corpusd-access.log" &
PIDS+=("$!")

RUN=$WORK/nginx; mkdir -p "$RUN"
sed -e "s|@NGINX_USER@|$(id -un) $(id -gn)|" -e "s|@RUNTIME_DIR@|$RUN|" -e "s|@LISTEN@|127.0.0.1:$N_PORT|" \
    -e "s|@PUBLIC_DIR@|$TREE|" -e "s|@CORPUSD@|127.0.0.1:$C_PORT|" deploy/nginx.conf > "$RUN/nginx.conf"
# Measure nginx without its access log (corpusd runs with --quiet, i.e. no access log, too).
sed -i "s|access_log $RUN/access.log corpus;|access_log off;|" "$RUN/nginx.conf"
nginx -p "$RUN" -e "$RUN/error.log" -c "$RUN/nginx.conf" -g 'daemon off;' 2>>"$RUN/error.log" &
N_PID=$!; PIDS+=("$N_PID")
# start_nginx NAME CONF_FILE: runs one more nginx on its own prefix; prints nothing.
start_nginx() {
  nginx -p "$WORK/$1" -e "$WORK/$1/error.log" -c "$2" -g 'daemon off;' 2>>"$WORK/$1/error.log" &
  PIDS+=("$!")
}
# deploy/nginx.conf with its access log on.
NL_PORT=$(free_port); mkdir -p "$WORK/nginx-log"
sed -e "s|@NGINX_USER@|$(id -un) $(id -gn)|" -e "s|@RUNTIME_DIR@|$WORK/nginx-log|" -e "s|@LISTEN@|127.0.0.1:$NL_PORT|" \
    -e "s|@PUBLIC_DIR@|$TREE|" -e "s|@CORPUSD@|127.0.0.1:$C_PORT|" deploy/nginx.conf > "$WORK/nginx-log/nginx.conf"
start_nginx nginx-log "$WORK/nginx-log/nginx.conf"
# A plain nginx: Debian's /etc/nginx/nginx.conf and its default site, with only the root, listen,
# pid and log paths changed (and the user, so it can read the tree), logging on and off.
plain_conf() { # plain_conf DIR PORT LOG(on|off)
  local log="$1/access.log"; [ "$3" = on ] || log=off
  sed -e "s|^user .*;|user $(id -un) $(id -gn);|" -e "s|^pid .*;|pid $1/nginx.pid;|" -e "s|^error_log .*;|error_log $1/error.log;|" \
      -e "s|^\(\s*\)access_log .*;|\1access_log $log;|" -e "s|^\(\s*\)include /etc/nginx/sites-enabled/\*;|\1include $1/site.conf;|" \
      /etc/nginx/nginx.conf > "$1/nginx.conf"
  sed -e "s|listen 80 default_server;|listen 127.0.0.1:$2 default_server;|" -e "/listen \[::\]:80/d" -e "s|root /var/www/html;|root $TREE;|" \
      /etc/nginx/sites-available/default > "$1/site.conf"
}
P_PORT=$(free_port); PL_PORT=$(free_port); mkdir -p "$WORK/plain" "$WORK/plain-log"
plain_conf "$WORK/plain" "$P_PORT" off; start_nginx plain "$WORK/plain/nginx.conf"
plain_conf "$WORK/plain-log" "$PL_PORT" on; start_nginx plain-log "$WORK/plain-log/nginx.conf"

for port in $C_PORT $N_PORT $CL_PORT $NL_PORT $P_PORT $PL_PORT; do
  for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/catalog.json" && break; sleep 0.1; done
done
# Sanity: each server answers each case as expected before timing anything.
check() { local code; code=$(curl -s -o /dev/null -w '%{http_code}' "${@:2}"); [ "$code" = "$1" ] || { echo "bench-server: expected $1 from ${*:2}, got $code"; exit 1; }; }
check 200 "http://127.0.0.1:$C_PORT$SMALL_FREE"; check 200 "http://127.0.0.1:$N_PORT$SMALL_FREE"
check 401 "http://127.0.0.1:$C_PORT$SMALL_GATED"; check 401 "http://127.0.0.1:$N_PORT$SMALL_GATED"
check 200 -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$C_PORT$SMALL_GATED"

SCRIPT=$WORK/report.lua
cat > "$SCRIPT" <<'LUA'
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d\n", summary.requests, summary.bytes, summary.duration,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA
# Prints "requests_per_second bytes_per_second errors" for one wrk run.
measure() {
  local conns=$1; shift
  wrk -t2 -c"$conns" -d"${DUR}s" --timeout 60s -s "$SCRIPT" "$@" | awk '/^RESULT/ { printf "%.1f %.1f %d\n", $2 / ($4 / 1e6), $3 / ($4 / 1e6), $5 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
verdict() { awk -v r="$1" -v g="$2" -v dir="$3" 'BEGIN { ok = (dir == "ge") ? (r >= g) : (r <= g); print ok ? "meets goal" : "BELOW GOAL" }'; }

# Best of ROUNDS alternating runs: prints "corpusd_value nginx_value errors" where value is field F (1 req/s, 2 bytes/s).
best_of() {
  local f=$1 conns=$2 c_url=$3 n_url=$4; shift 4
  local c_best=0 n_best=0 errs=0 v e
  for _ in $(seq "$ROUNDS"); do
    read -r v e < <(measure "$conns" "$@" "$c_url" | awk -v f="$f" '{ print $f, $3 }'); errs=$((errs + e))
    c_best=$(awk -v a="$c_best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
    read -r v e < <(measure "$conns" "$@" "$n_url" | awk -v f="$f" '{ print $f, $3 }'); errs=$((errs + e))
    n_best=$(awk -v a="$n_best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
  done
  echo "$c_best $n_best $errs"
}

echo "== wrk -t2, ${DUR}s per run, best of $ROUNDS alternating rounds (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
C=http://127.0.0.1:$C_PORT; N=http://127.0.0.1:$N_PORT
read -r c_small n_small e1 < <(best_of 1 32 "$C/catalogs/1.json" "$N/catalogs/1.json")
# corpusd at its defaults against a plain nginx at its defaults, and against deploy/nginx.conf,
# access logging on in both and off in both.
read -r c_q n_plain eq1 < <(best_of 1 32 "$C/catalogs/1.json" "http://127.0.0.1:$P_PORT/catalogs/1.json")
read -r c_l n_plain_l el1 < <(best_of 1 32 "http://127.0.0.1:$CL_PORT/catalogs/1.json" "http://127.0.0.1:$PL_PORT/catalogs/1.json")
read -r c_l2 n_deploy_l el2 < <(best_of 1 32 "http://127.0.0.1:$CL_PORT/catalogs/1.json" "http://127.0.0.1:$NL_PORT/catalogs/1.json")
read -r c_big n_big e2 < <(best_of 2 4 "$C$BIG_FREE" "$N$BIG_FREE")
read -r c_gated n_free e3 < <(best_of 1 32 "$C$SMALL_GATED" "$N/plain-4k.bin" -H "Authorization: Bearer $TOKEN")
read -r _ n_gated e4 < <(ROUNDS=1 best_of 1 32 "$C$SMALL_GATED" "$N$SMALL_GATED" -H "Authorization: Bearer $TOKEN")
rss_kib=$(awk '/VmHWM/ { print $2 }' "/proc/$C_PID/status")

grep -q 'GET /catalogs/1.json' "$WORK/corpusd-access.log" && grep -q 'GET /catalogs/1.json' "$WORK/plain-log/access.log" \
  || { echo "bench-server: an access log that should be on stayed empty"; exit 1; }
r_plain=$(ratio "$c_q" "$n_plain"); r_plain_l=$(ratio "$c_l" "$n_plain_l"); r_deploy_l=$(ratio "$c_l2" "$n_deploy_l")
r_small=$(ratio "$c_small" "$n_small"); r_big=$(ratio "$c_big" "$n_big"); r_gated=$(ratio "$c_gated" "$n_free")
rss_mib=$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
printf '%-44s %14s %14s %7s  %s\n' "case" "corpusd" "nginx" "ratio" "goal"
printf '%-44s %14.0f %14.0f %7s  %s\n' "small file (catalogs/1.json), req/s" "$c_small" "$n_small" "$r_small" ">= 0.8, $(verdict "$r_small" 0.8 ge)"
printf '%-44s %14.0f %14.0f %7s  %s\n' "small file vs PLAIN nginx, logs off, req/s" "$c_q" "$n_plain" "$r_plain" ">= 0.9, $(verdict "$r_plain" 0.9 ge)"
printf '%-44s %14.0f %14.0f %7s  %s\n' "small file vs PLAIN nginx, logs on, req/s" "$c_l" "$n_plain_l" "$r_plain_l" ">= 0.9, $(verdict "$r_plain_l" 0.9 ge)"
printf '%-44s %14.0f %14.0f %7s  %s\n' "small file vs deploy nginx, logs on, req/s" "$c_l2" "$n_deploy_l" "$r_deploy_l" ">= 0.8, $(verdict "$r_deploy_l" 0.8 ge)"
printf '%-44s %14.1f %14.1f %7s  %s\n' "1 GiB bundle, MiB/s (4 connections)" "$(awk -v b="$c_big" 'BEGIN{print b/1048576}')" "$(awk -v b="$n_big" 'BEGIN{print b/1048576}')" "$r_big" ">= 0.8, $(verdict "$r_big" 0.8 ge)"
printf '%-44s %14.0f %14.0f %7s  %s\n' "gated 4 KiB w/ token vs nginx ungated 4 KiB" "$c_gated" "$n_free" "$r_gated" ">= 0.5, $(verdict "$r_gated" 0.5 ge)"
printf '%-44s %14s %14.0f %7s  %s\n' "(info) nginx gated via auth_request, req/s" "" "$n_gated" "" ""
printf '%-44s %14s %14s %7s  %s\n' "corpusd peak RSS (VmHWM), MiB" "$rss_mib" "" "" "<= 64, $(verdict "$rss_mib" 64 le)"
# Machine-readable lines for scripts/bench.sh: RESULT name value unit peer ratio goal.
printf 'RESULT\t%s\t%.0f\treq/s\t%.0f\t%s\t>=0.8x\n' "serve small file vs nginx" "$c_small" "$n_small" "$r_small"
printf 'RESULT\t%s\t%.0f\treq/s\t%.0f\t%s\t>=0.9x\n' "serve small file vs plain nginx, logs off" "$c_q" "$n_plain" "$r_plain"
printf 'RESULT\t%s\t%.0f\treq/s\t%.0f\t%s\t>=0.9x\n' "serve small file vs plain nginx, logs on" "$c_l" "$n_plain_l" "$r_plain_l"
printf 'RESULT\t%s\t%.0f\treq/s\t%.0f\t%s\t>=0.8x\n' "serve small file vs deploy nginx, logs on" "$c_l2" "$n_deploy_l" "$r_deploy_l"
printf 'RESULT\t%s\t%.0f\tMiB/s\t%.0f\t%s\t>=0.8x\n' "serve 1 GiB bundle vs nginx" "$(awk -v b="$c_big" 'BEGIN{print b/1048576}')" "$(awk -v b="$n_big" 'BEGIN{print b/1048576}')" "$r_big"
printf 'RESULT\t%s\t%.0f\treq/s\t%.0f\t%s\t>=0.5x\n' "serve gated 4 KiB (token) vs nginx ungated" "$c_gated" "$n_free" "$r_gated"
printf 'RESULT\t%s\t%s\tMiB\t-\t-\t<=64\n' "corpusd peak RSS" "$rss_mib"
errors=$((e1 + e2 + e3 + e4 + eq1 + el1 + el2))
[ "$errors" = 0 ] || echo "note: wrk counted $errors non-2xx/socket errors across runs"
