#!/usr/bin/python3
"""The soak's misbehaving proxy (docs/soak.md): forwards loopback TCP to one upstream and, on a
share of connections, truncates, stalls or resets the upstream's answer part-way.

Run with Debian's /usr/bin/python3 (standard library only):

    soak_proxy.py --listen PORT --upstream PORT --stats FILE [--seed N]
                  [--truncate 0.12] [--stall 0.08] [--reset 0.12]

Faults are decided per connection when it is accepted (libcurl reuses a connection for the next
request, so a fault may land in any response it carries): after a random number of upstream bytes
(half of them in the first 4 KiB, the rest up to 128 KiB, so heads, pointers,
signatures, catalogs and bundle bodies are all hit), the proxy
- truncate: closes both sides with a FIN (the client sees a short body);
- reset: closes the client side with SO_LINGER 0, so the client gets an RST;
- stall: stops sending for 3 to 45 s (the client's stall window is 30 s), then carries on.
A connection that ends before its fault offset gets no fault; only faults actually injected are
counted. The counts are written as JSON to --stats every 2 s and on SIGTERM:
connections, requests, range_requests (resumes), faults by kind, refetches (a later request for
a path whose answer was cut by a fault: a client retry, a resume or a failover back here),
upstream_down (the upstream refused the connection: the mirror was killed), bytes.
"""
import argparse
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time

REQUEST_LINE = re.compile(rb"(?:^|\r\n)(GET|HEAD) (\S+) HTTP/1\.[01]\r\n")
RANGE_HEADER = re.compile(rb"\r\nrange:", re.IGNORECASE)


class Stats:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.data = {"connections": 0, "requests": 0, "range_requests": 0, "refetches": 0, "upstream_down": 0,
                     "bytes_to_clients": 0, "faults": {"truncate": 0, "stall": 0, "reset": 0}}
        self.cut_paths = set()

    def add(self, key, n=1):
        with self.lock:
            self.data[key] += n

    def fault(self, kind, path):
        with self.lock:
            self.data["faults"][kind] += 1
            if path:
                self.cut_paths.add(path)

    def request(self, path, ranged):
        with self.lock:
            self.data["requests"] += 1
            if ranged:
                self.data["range_requests"] += 1
            if path in self.cut_paths:
                self.data["refetches"] += 1
                self.cut_paths.discard(path)

    def write(self):
        with self.lock:
            text = json.dumps(self.data, sort_keys=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, self.path)


def pick_fault(rng, args):
    r = rng.random()
    for kind, share in (("truncate", args.truncate), ("stall", args.stall), ("reset", args.reset)):
        if r < share:
            return kind
        r -= share
    return None


def close_quietly(s):
    try:
        s.close()
    except OSError:
        pass


class Connection:
    """One client connection and its upstream; two threads copy bytes, the upstream→client one
    injects this connection's fault."""

    def __init__(self, client, args, stats, rng):
        self.client = client
        self.args = args
        self.stats = stats
        self.fault = pick_fault(rng, args)
        # Half the faults land in the first 4 KiB (status lines, headers, pointers, signatures),
        # the rest anywhere in the first 128 KiB (catalogs, deltas, bundles of these corpora).
        self.offset = rng.randint(0, 4096) if rng.random() < 0.5 else rng.randint(0, 128 * 1024)
        self.stall_seconds = rng.uniform(3, 45)
        self.last_path = None
        self.reset = False
        self.done = threading.Event()

    def run(self):
        try:
            upstream = socket.create_connection(("127.0.0.1", self.args.upstream), timeout=5)
        except OSError:
            self.stats.add("upstream_down")
            close_quietly(self.client)
            return
        upstream.settimeout(None)
        self.upstream = upstream
        reader = threading.Thread(target=self.requests, daemon=True)
        reader.start()
        try:
            self.answers()
        finally:
            self.done.set()
            # A socket closed while another thread is blocked in recv() on it is only released
            # when that recv returns: wake the reader first, so the FIN or RST leaves now.
            try:
                self.client.shutdown(socket.SHUT_RD if self.reset else socket.SHUT_RDWR)
            except OSError:
                pass
            reader.join(5)
            close_quietly(upstream)
            close_quietly(self.client)

    def requests(self):
        """Client → upstream, unchanged; counts request lines and Range headers as they pass."""
        pending = b""
        try:
            while not self.done.is_set():
                data = self.client.recv(65536)
                if not data:
                    break
                pending = (pending + data)[-65536:]
                while True:
                    end = pending.find(b"\r\n\r\n")
                    if end < 0:
                        break
                    head, pending = pending[:end + 2], pending[end + 4:]
                    m = REQUEST_LINE.search(b"\r\n" + head)
                    if m:
                        self.last_path = m.group(2).decode("latin-1")
                        self.stats.request(self.last_path, bool(RANGE_HEADER.search(head)))
                self.upstream.sendall(data)
        except OSError:
            pass
        try:
            self.upstream.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def answers(self):
        sent = 0
        while True:
            try:
                data = self.upstream.recv(65536)
            except OSError:
                return
            if not data:
                return
            if self.fault and sent + len(data) > self.offset:
                keep = self.offset - sent
                if keep > 0:
                    self.send(data[:keep])
                self.inject(data[keep:])
                if self.fault != "stall":
                    return
                self.fault = None
                continue
            if not self.send(data):
                return
            sent += len(data)

    def send(self, data):
        try:
            self.client.sendall(data)
            self.stats.add("bytes_to_clients", len(data))
            return True
        except OSError:
            return False

    def inject(self, rest):
        kind = self.fault
        self.stats.fault(kind, self.last_path)
        if kind == "truncate":
            try:
                self.client.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        elif kind == "reset":
            self.reset = True
            self.client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif kind == "stall":
            time.sleep(self.stall_seconds)
            self.send(rest)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", type=int, required=True)
    p.add_argument("--upstream", type=int, required=True)
    p.add_argument("--stats", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--truncate", type=float, default=0.12)
    p.add_argument("--stall", type=float, default=0.08)
    p.add_argument("--reset", type=float, default=0.12)
    args = p.parse_args()

    stats = Stats(args.stats)
    rng = random.Random(args.seed)
    rng_lock = threading.Lock()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.listen))
    server.listen(256)

    def stop(*_):
        stats.write()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    def flush():
        while True:
            time.sleep(2)
            stats.write()

    threading.Thread(target=flush, daemon=True).start()
    stats.write()
    print(f"soak proxy on 127.0.0.1:{args.listen} -> 127.0.0.1:{args.upstream}", file=sys.stderr, flush=True)
    while True:
        client, _ = server.accept()
        stats.add("connections")
        with rng_lock:
            conn = Connection(client, args, stats, random.Random(rng.getrandbits(64)))
        threading.Thread(target=conn.run, daemon=True).start()


if __name__ == "__main__":
    main()
