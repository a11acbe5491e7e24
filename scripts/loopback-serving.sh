# Sourced by the benchmarks that run `corpusd serve` on loopback (bench-search.sh, bench-read.sh):
# a free port, waiting for a server, and a home filled from a published tree by the real client.
# Needs $bin (the release products' folder).

freeport() { /usr/bin/python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
waitup() { for _ in $(seq 200); do curl -sf "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.1; done; return 1; }

# install_home PUBLIC_DIR ROOT_PUB HOME ID...: a fresh HOME with the corpora installed from
# PUBLIC_DIR, served for the install only, so every file was verified by the client.
install_home() {
  local public=$1 pub=$2 home=$3 port opid
  shift 3
  rm -rf "$home"
  port=$(freeport)
  "$bin/corpusd" serve "$public" --listen "127.0.0.1:$port" --quiet & opid=$!
  waitup "$port"
  "$bin/corpus" --home "$home" remote add main "http://127.0.0.1:$port" --trust "$pub" --quiet
  "$bin/corpus" --home "$home" install "$@" --quiet
  kill $opid; wait $opid 2>/dev/null || true
}
