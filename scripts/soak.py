#!/usr/bin/python3
"""`make soak`: the soak with faults (docs/soak.md).

One origin `corpusd serve` over a published tree; two mirrors made by `corpusd mirror` (one served
by `corpusd serve` behind scripts/soak_proxy.py, which truncates, stalls and resets a share of its
answers; one served by nginx with deploy/nginx.conf); N client homes running real `corpus`
processes (install, sync by delta and in full, sync --wanted --prune, remove, search, verify, gc)
for the set time, while the publisher republishes and the mirrors are killed, restarted and
mirrored again. Then every home is checked and one table is printed. Exit 1 if any check fails.

Debian's /usr/bin/python3, standard library only.
"""
import argparse
import collections
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORDS = ["anchor", "bearing", "chart", "compass", "current", "depth", "estuary", "fathom", "gale", "headland", "inlet",
         "jetty", "keel", "lee", "mooring", "offing", "pilot", "quay", "reef", "shoal", "sounding", "swell", "tide",
         "wake", "berth", "buoy", "channel", "draught", "helm", "orchard", "harvest", "graft", "loam", "pruning"]
CORPORA = ["harbour", "orchard", "ledger", "lantern", "meadow"]
SEARCHES = ["tide", "anchor chart", "harvest pruning", "\"quay reef\"", "keel OR helm", "buoy*", "note 3", "loam -graft"]


def log(msg):
    print(f"[soak {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_http(url, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return True
        except Exception:
            time.sleep(0.2)
    return False


class Service:
    """A long-running process this script started (its own session, so a kill reaches its children)."""

    def __init__(self, name, args, logfile, health=None):
        self.name, self.args, self.logfile, self.health = name, args, logfile, health
        self.proc = None

    def start(self):
        out = open(self.logfile, "ab")
        self.proc = subprocess.Popen(self.args, stdout=out, stderr=out, stdin=subprocess.DEVNULL, start_new_session=True)
        out.close()
        if self.health and not wait_http(self.health):
            raise RuntimeError(f"{self.name} did not come up (log: {self.logfile})")
        return self

    @property
    def pid(self):
        return self.proc.pid

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def stop(self):
        self.kill(signal.SIGTERM)


def run(args, timeout=900, env=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


class Publisher:
    """The catalog folder and its corpora's documents; each publish changes a few of them."""

    def __init__(self, soak):
        self.soak = soak
        self.dir = os.path.join(soak.work, "catalog")
        self.versions = {c: 1 for c in CORPORA}
        # Each document is (seed, paragraphs); a new seed is a changed document.
        self.docs = {c: {f"note-{d:02d}.md": (i * 1000 + d, 3 + d % 3) for d in range(24)} for i, c in enumerate(CORPORA)}
        self.next_seed = 10 ** 6
        self.count = 0
        self.history = []

    def document(self, corpus, name, seed, paragraphs):
        rng = random.Random(seed)
        lines = [f"# {corpus.title()} {name[:-3]}", ""]
        for p in range(paragraphs):
            words = [rng.choice(WORDS) + str(rng.randrange(97)) for _ in range(60)]
            lines += [f"Paragraph {p} of {name} in {corpus} ({seed}): " + " ".join(words) + ".", ""]
        return "\n".join(lines)

    def write(self):
        entries = []
        for c in CORPORA:
            folder = os.path.join(self.dir, "sources", c)
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            for name, (seed, paragraphs) in self.docs[c].items():
                with open(os.path.join(folder, name), "w") as f:
                    f.write(self.document(c, name, seed, paragraphs))
            entries.append({"id": c, "version": str(self.versions[c]), "title": f"Soak {c}", "source": f"sources/{c}",
                            "access": "free", "license": "CC0-1.0"})
        with open(os.path.join(self.dir, "catalog.json"), "w") as f:
            json.dump({"id": "soak", "title": "Soak catalog", "corpora": entries}, f, sort_keys=True)

    def change(self, rng):
        """Small changes to one or two corpora (a delta serves them); every third publish instead
        rewrites about 90 % of one corpus and publishes it with `--deltas 0`, so clients take the
        full bundle (even a 90 % rewrite's delta is about a third of the bundle here, under the half
        at which publish drops it: the FTS5 index dominates these small bundles)."""
        changed = {}
        if self.count % 3 == 2:
            c = rng.choice(CORPORA)
            for name in sorted(self.docs[c]):
                if rng.random() < 0.9:
                    self.next_seed += 1
                    self.docs[c][name] = (self.next_seed, self.docs[c][name][1] % 5 + 1)
            self.versions[c] += 1
            return {c: "large"}
        for c in rng.sample(CORPORA, rng.choice([1, 2])):
            names = sorted(self.docs[c])
            for name in rng.sample(names, 2):
                self.next_seed += 1
                self.docs[c][name] = (self.next_seed, self.docs[c][name][1])
            self.next_seed += 1
            self.docs[c][f"added-{self.next_seed}.md"] = (self.next_seed, 2)
            self.versions[c] += 1
            changed[c] = "small"
        return changed

    def publish(self, rng=None):
        changed = self.change(rng) if rng else {}
        self.write()
        t = time.time()
        r = run([self.soak.corpusd, "publish", self.dir, "--out", self.soak.public, "--key", self.soak.key,
                 "--expires", "2d", "--quiet"] + (["--deltas", "0"] if "large" in changed.values() else []))
        took = time.time() - t
        self.count += 1
        if r.returncode != 0:
            raise RuntimeError(f"corpusd publish exited {r.returncode}: {r.stderr.strip()}")
        pointer = json.load(open(os.path.join(self.soak.public, "catalog.json")))
        version = pointer.get("version")
        catalog = json.load(open(os.path.join(self.soak.public, "catalogs", f"{version}.json")))
        deltas = {e["id"]: len(e.get("deltas") or []) for e in catalog["corpora"]}
        self.history.append({"catalog": version, "changed": changed, "deltas": {c: deltas[c] for c in changed}, "seconds": round(took, 1)})
        log(f"published catalog {version} in {took:.1f} s: {changed or 'no change'}; deltas listed {self.history[-1]['deltas']}")
        return version


class Mirror:
    """A `corpusd mirror` folder and what serves it."""

    def __init__(self, soak, name, kind):
        self.soak, self.name, self.kind = soak, name, kind
        self.dir = os.path.join(soak.work, name)
        self.lock = threading.Lock()
        self.services = []
        self.runs = collections.Counter()
        # Fixed for the whole run: clients, the proxy and nginx name these ports, so a restarted
        # mirror must come back on them.
        self.port = free_port()
        self.auth_port = free_port()

    def mirror(self):
        with self.lock:
            r = run([self.soak.corpusd, "mirror", self.soak.origin_url, "--out", self.dir, "--trust", self.soak.pub, "--json"])
            self.runs["ok" if r.returncode == 0 else f"exit {r.returncode}"] += 1
            if r.returncode != 0:
                log(f"corpusd mirror {self.name} exited {r.returncode}: {r.stderr.strip()[-300:]}")
            return r.returncode

    def start(self):
        s = self.soak
        if self.kind == "corpusd":
            self.services = [Service(f"{self.name}-serve", [s.corpusd, "serve", self.dir, "--listen", f"127.0.0.1:{self.port}"],
                                     s.logpath(f"{self.name}-serve"), f"http://127.0.0.1:{self.port}/healthz").start()]
        else:
            auth_port = self.auth_port
            runtime = os.path.join(s.work, f"{self.name}-nginx")
            os.makedirs(runtime, exist_ok=True)
            text = open(os.path.join(ROOT, "deploy", "nginx.conf")).read()
            for k, v in {"NGINX_USER": "nobody nogroup", "RUNTIME_DIR": runtime, "LISTEN": f"127.0.0.1:{self.port}",
                         "PUBLIC_DIR": self.dir, "CORPUSD": f"127.0.0.1:{auth_port}"}.items():
                text = text.replace(f"@{k}@", v)
            conf = os.path.join(runtime, "nginx.conf")
            open(conf, "w").write(text)
            self.services = [
                Service(f"{self.name}-auth", [s.corpusd, "serve", self.dir, "--listen", f"127.0.0.1:{auth_port}", "--quiet"],
                        s.logpath(f"{self.name}-auth"), f"http://127.0.0.1:{auth_port}/healthz").start(),
                Service(f"{self.name}-nginx", ["nginx", "-p", runtime, "-e", f"{runtime}/error.log", "-c", conf, "-g", "daemon off;"],
                        s.logpath(f"{self.name}-nginx"), f"http://127.0.0.1:{self.port}/catalog.json").start()]
        return self

    def kill(self):
        for svc in self.services:
            svc.kill(signal.SIGKILL)

    def stop(self):
        for svc in reversed(self.services):
            svc.stop()


class Home:
    """One client home and what the soak believes it holds."""

    def __init__(self, soak, index, sources):
        self.soak, self.index = soak, index
        self.path = os.path.join(soak.work, "homes", f"h{index:03d}")
        self.sources = sources
        self.installed = {}  # id -> version, as the last `corpus list` said
        self.rng = random.Random(soak.args.seed * 1000 + index)

    def corpus(self, *args, timeout=900):
        return self.soak.client([self.soak.corpus_bin, "--home", self.path, "--json", *args], timeout)


class Soak:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="corpus-soak-")
        os.chmod(self.work, 0o755)  # nginx workers run as nobody
        self.corpusd = os.path.join(args.bin, "corpusd")
        self.corpus_bin = os.path.join(args.bin, "corpus")
        self.public = os.path.join(self.work, "public")
        self.key = os.path.join(self.work, "keys", "root.key")
        self.pub = os.path.join(self.work, "keys", "root.pub")
        self.lock = threading.Lock()
        self.ops = collections.Counter()           # (op, "ok"/"failed")
        self.failures = collections.Counter()      # (op, exit, code)
        self.soak_failures = []                    # what fails the soak
        self.via = collections.Counter()
        self.bytes = collections.Counter()
        self.attempts_in_failures = 0
        self.samples = []
        self.events = collections.Counter()
        self.stop = threading.Event()
        self.quiet = threading.Lock()              # held while origin's RSS/fds are read at rest
        self.paused = threading.Event()
        self.busy = 0
        self.busy_cv = threading.Condition()
        self.signed = collections.defaultdict(set)
        self.client_env = {k: v for k, v in os.environ.items() if not k.startswith("CORPUS_")}

    def logpath(self, name):
        os.makedirs(os.path.join(self.work, "logs"), exist_ok=True)
        return os.path.join(self.work, "logs", f"{name}.log")

    def fail(self, what):
        with self.lock:
            self.soak_failures.append(what)
        log(f"SOAK FAILURE: {what}")

    # --- client processes -------------------------------------------------------------------
    def client(self, args, timeout):
        t = time.time()
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                               env=self.client_env)
        except subprocess.TimeoutExpired as e:
            self.fail(f"hung: {' '.join(args[3:])} ran over {timeout} s")
            return None, {}, ""
        if r.returncode < 0:
            self.fail(f"crash: {' '.join(args[1:])} killed by signal {-r.returncode}: {r.stderr.strip()[-400:]}")
        try:
            obj = json.loads(r.stdout) if r.stdout.strip() else {}
        except json.JSONDecodeError:
            obj = {}
            if r.returncode >= 0:
                self.fail(f"bad --json output from {' '.join(args[3:])}: {r.stdout[:200]!r}")
        return r.returncode, obj, r.stderr

    def count_error(self, error, codes):
        """Adds an error object's code to `codes` and the attempts its message names ("after N attempts")."""
        if not isinstance(error, dict):
            return
        codes.append(error.get("code", "?"))
        msg = error.get("message", "")
        if "after " in msg and " attempt" in msg:
            try:
                self.attempts_in_failures += int(msg.split("after ")[1].split(" attempt")[0])
            except ValueError:
                pass

    def record(self, op, rc, obj, stderr):
        """Counts one operation: ok, or failed by exit code and error code(s)."""
        codes = []
        self.count_error(obj.get("error"), codes)
        for res in obj.get("results", []) or []:
            if res.get("via"):
                self.via[(op, res["via"])] += 1
            if res.get("bytes_downloaded"):
                self.bytes[res.get("via", "?")] += res["bytes_downloaded"]
            if res.get("delta_error"):
                self.via[(op, "delta-not-used:" + res["delta_error"].get("code", "?"))] += 1
            if res.get("status") == "repaired":
                self.via[(op, "repaired")] += 1
            self.count_error(res.get("error"), codes)
        # A catalog that could not be refreshed makes an install or sync exit 5 (docs/cli.md).
        for u in obj.get("unrefreshed", []) or []:
            self.count_error(u.get("error"), codes)
        with self.lock:
            if rc == 0:
                self.ops[(op, "ok")] += 1
            else:
                self.ops[(op, "failed")] += 1
                key = (op, rc, ",".join(sorted(set(codes))) or "-")
                self.failures[key] += 1
        if rc is not None and rc == 1:
            self.fail(f"unexpected failure (exit 1) in {op}: {obj or stderr.strip()[-300:]}")
        if rc is not None and rc not in (0, 5) and not (rc == 3 and set(codes) <= {"rollback"}):
            log(f"note: {op} exit {rc} {codes}: {(json.dumps(obj) if obj else stderr.strip())[-300:]}")

    def load_signed(self):
        folder = os.path.join(self.public, "catalogs")
        for name in os.listdir(folder):
            if name.endswith(".json"):
                for e in json.load(open(os.path.join(folder, name)))["corpora"]:
                    self.signed[e["id"]].add(e["version"])

    def listing(self, home):
        rc, obj, err = home.corpus("list")
        if rc != 0:
            self.fail(f"corpus list failed in {home.path}: exit {rc} {err.strip()[-200:]}")
            return None
        return {e["id"]: e["version"] for e in obj.get("installed", []) if e.get("catalog") == "main"}

    def check_after(self, home, op, may_go):
        """A corpus installed before the operation and not one it may remove must still be there,
        at a version some catalog signed and not below the one it had."""
        now = self.listing(home)
        if now is None:
            return
        for cid, version in home.installed.items():
            if cid not in now and cid not in may_go:
                self.fail(f"lost corpus: {home.path} main/{cid} {version} gone after {op}")
            elif cid in now and int(now[cid]) < int(version):
                self.fail(f"went back: {home.path} main/{cid} {version} -> {now[cid]} after {op}")
        with self.lock:
            self.load_signed()
            for cid, version in now.items():
                if version not in self.signed.get(cid, ()):
                    self.fail(f"unsigned version: {home.path} holds main/{cid} {version}, never in a catalog")
        home.installed = now

    # --- one client's loop --------------------------------------------------------------------
    def one_op(self, home):
        rng = home.rng
        installed = sorted(home.installed)
        missing = [c for c in CORPORA if c not in home.installed]
        op = rng.choices(["install", "sync", "wanted", "remove", "search", "verify", "gc"], [24, 26, 8, 10, 24, 5, 3])[0]
        may_go = set()
        if op == "install" and missing:
            ids = rng.sample(missing, rng.choice([1, 1, 2])) if len(missing) > 1 else missing
            rc, obj, err = home.corpus("install", *ids)
        elif op == "remove" and installed:
            target = rng.choice(installed)
            may_go = {target}
            rc, obj, err = home.corpus("remove", target)
        elif op == "wanted":
            wanted = rng.sample(CORPORA, rng.randint(1, 4))
            path = os.path.join(home.path + ".wanted.json")
            with open(path, "w") as f:
                json.dump(wanted, f)
            may_go = set(CORPORA) - set(wanted)
            rc, obj, err = home.corpus("sync", "--wanted", path, "--prune")
        elif op == "search" and installed:
            rc, obj, err = home.corpus("search", rng.choice(SEARCHES), "-k", "5")
            if rc == 0 and obj.get("skipped"):
                self.fail(f"search skipped a damaged corpus in {home.path}: {obj['skipped']}")
        elif op == "verify" and installed:
            rc, obj, err = home.corpus("verify")
            bad = [v for v in obj.get("verified", []) if not v.get("ok")]
            if rc != 0 or bad:
                self.fail(f"corrupt install: verify in {home.path} exit {rc}: {bad or err.strip()[-300:]}")
        elif op == "gc":
            rc, obj, err = home.corpus("gc")
        else:
            op = "sync"
            rc, obj, err = home.corpus("sync")
        self.record(op, rc, obj, err)
        self.check_after(home, op, may_go)

    def worker(self, home):
        while not self.stop.is_set():
            while self.paused.is_set() and not self.stop.is_set():
                time.sleep(0.2)
            with self.busy_cv:
                if self.stop.is_set():
                    break
                if self.paused.is_set():
                    continue
                self.busy += 1
            try:
                self.one_op(home)
            except Exception as e:  # a bug of this script is a failure too
                self.fail(f"soak script error in {home.path}: {e!r}")
            finally:
                with self.busy_cv:
                    self.busy -= 1
                    self.busy_cv.notify_all()
            time.sleep(home.rng.uniform(0.2, 2.0))

    # --- the origin's memory and descriptors ----------------------------------------------------
    def sample(self, label=""):
        pid = self.origin.pid
        rss = None
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        s = {"t": round(time.time() - self.t0), "rss_kb": rss, "fds": fds, "label": label, "load": os.getloadavg()[0]}
        with self.lock:
            self.samples.append(s)
        return s

    def sampler(self):
        while not self.stop.wait(self.args.sample_every):
            try:
                self.sample()
            except OSError as e:
                self.fail(f"origin corpusd serve gone: {e}")
                return

    def at_rest(self, label):
        """Pauses the clients, the publisher and the mirror killer, lets connections close, samples."""
        with self.quiet:
            self.paused.set()
            with self.busy_cv:
                while self.busy:
                    self.busy_cv.wait()
            time.sleep(5)
            s = self.sample(label)
            self.paused.clear()
        log(f"{label}: origin RSS {s['rss_kb']} kB, {s['fds']} fds")
        return s

    # --- publisher and mirror killer ------------------------------------------------------------
    def publisher(self, rng):
        while not self.stop.wait(self.args.publish_every):
            with self.quiet:
                try:
                    self.pub_state.publish(rng)
                    self.events["publishes"] += 1
                except Exception as e:
                    self.fail(f"publish failed: {e}")
                    continue
                for m in self.mirrors:
                    if m.mirror() == 0:
                        self.events[f"re-mirror {m.name}"] += 1

    def killer(self, rng):
        turn = 0
        while not self.stop.wait(self.args.kill_every):
            m = self.mirrors[turn % len(self.mirrors)]
            turn += 1
            with self.quiet:
                m.kill()
            self.events[f"killed {m.name} ({m.kind})"] += 1
            log(f"killed mirror {m.name} ({m.kind}), down for a while")
            if self.stop.wait(rng.uniform(15, 30)):
                pass
            with self.quiet:
                m.mirror()
                m.start()
            log(f"restarted mirror {m.name}")

    def start_proxy(self):
        self.proxy_stats_file = os.path.join(self.work, f"proxy-stats-{len(self.proxy_generations)}.json")
        self.proxy = Service("proxy", ["/usr/bin/python3", os.path.join(HERE, "soak_proxy.py"), "--listen", str(self.proxy_port),
                                       "--upstream", str(self.mirrors[0].port), "--stats", self.proxy_stats_file,
                                       "--seed", str(self.args.seed + len(self.proxy_generations))],
                             self.logpath("proxy")).start()
        self.proxy_generations.append(self.proxy_stats_file)
        time.sleep(0.5)

    def proxy_totals(self):
        total = collections.Counter()
        for path in self.proxy_generations:
            try:
                d = json.load(open(path))
            except (OSError, json.JSONDecodeError):
                continue
            for k, v in d.items():
                if isinstance(v, dict):
                    for kk, vv in v.items():
                        total[f"{k}.{kk}"] += vv
                else:
                    total[k] += v
        return total

    # --- setup, run, checks ---------------------------------------------------------------------
    def setup(self):
        log(f"work folder {self.work}")
        r = run([self.corpusd, "keygen", "--out", os.path.join(self.work, "keys"), "--name", "root"])
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        self.pub_state = Publisher(self)
        self.pub_state.publish()
        self.origin_port = free_port()
        self.origin_url = f"http://127.0.0.1:{self.origin_port}"
        self.origin = Service("origin", [self.corpusd, "serve", self.public, "--listen", f"127.0.0.1:{self.origin_port}"],
                              self.logpath("origin"), f"{self.origin_url}/healthz").start()
        self.mirrors = [Mirror(self, "mirror-a", "corpusd"), Mirror(self, "mirror-b", "nginx")]
        for m in self.mirrors:
            if m.mirror() != 0:
                raise RuntimeError(f"first corpusd mirror of {m.name} failed")
            m.start()
        self.proxy_port = free_port()
        self.proxy_generations = []
        self.start_proxy()
        urls = {"origin": self.origin_url, "proxy": f"http://127.0.0.1:{self.proxy_port}",
                "nginx": f"http://127.0.0.1:{self.mirrors[1].port}"}
        # A third of the homes name each host as their remote's URL (tried first), the other two as
        # mirrors: every host, the faulty proxy included, carries first-choice traffic.
        orders = [["origin", "proxy", "nginx"], ["proxy", "origin", "nginx"], ["nginx", "proxy", "origin"]]
        self.homes = []
        for i in range(self.args.clients):
            order = orders[i % 3]
            home = Home(self, i, order)
            args = ["remote", "add", "main", urls[order[0]], "--trust", self.pub]
            for o in order[1:]:
                args += ["--mirror", urls[o]]
            rc, obj, err = home.corpus(*args)
            if rc != 0:
                raise RuntimeError(f"remote add failed: {err}")
            self.homes.append(home)

    def run(self):
        self.t0 = time.time()
        rng = random.Random(self.args.seed)
        duration = self.args.minutes * 60
        warmup = min(self.args.warmup, duration / 4)
        threads = [threading.Thread(target=self.worker, args=(h,), daemon=True) for h in self.homes]
        for t in threads:
            t.start()
        self.sample("start")
        side = [threading.Thread(target=self.sampler, daemon=True),
                threading.Thread(target=self.publisher, args=(random.Random(rng.random()),), daemon=True),
                threading.Thread(target=self.killer, args=(random.Random(rng.random()),), daemon=True)]
        for t in side:
            t.start()
        time.sleep(warmup)
        self.warm = self.at_rest("after warm-up")
        while time.time() - self.t0 < duration and not self.stop.is_set():
            time.sleep(5)
            done = int(time.time() - self.t0)
            if done % 60 < 5:
                with self.lock:
                    ok = sum(v for (o, s), v in self.ops.items() if s == "ok")
                    bad = sum(v for (o, s), v in self.ops.items() if s == "failed")
                log(f"{done // 60} min: {ok} ok, {bad} failed operations, load {os.getloadavg()[0]:.1f}")
        log("time is up: stopping clients, publisher and mirror killer")
        self.stop.set()
        for t in threads:
            t.join()
        for t in side:
            t.join()
        # A mirror left down by the killer comes back for the final checks.
        for m in self.mirrors:
            if not all(s.proc.poll() is None for s in m.services):
                m.mirror()
                m.start()
        time.sleep(5)
        self.end = self.sample("end (at rest)")
        log(f"end: origin RSS {self.end['rss_kb']} kB, {self.end['fds']} fds")

    def final_checks(self):
        self.load_signed()
        leftovers = collections.Counter()
        verified = collections.Counter()
        for home in self.homes:
            rc, obj, err = home.corpus("gc")
            self.record("final gc", rc, obj, err)
            if rc != 0:
                self.fail(f"final gc in {home.path} exit {rc}: {err.strip()[-300:]}")
            rc, obj, err = home.corpus("verify")
            bad = [v for v in obj.get("verified", []) if not v.get("ok")]
            verified["ok" if rc == 0 and not bad else "failed"] += 1
            if rc != 0 or bad:
                self.fail(f"corrupt install: final verify in {home.path} exit {rc}: {bad or err.strip()[-300:]}")
            self.check_after(home, "final gc", set())
            for kind, path in self.leftovers(home):
                leftovers[kind] += 1
                self.fail(f"leftover after gc ({kind}): {path}")
        staging = os.path.join(self.public, ".staging")
        if os.path.isdir(staging) and os.listdir(staging):
            leftovers["publisher .staging"] += 1
            self.fail(f"leftover in the published tree: {os.listdir(staging)}")
        for m in self.mirrors:
            pending = os.path.join(m.dir, ".mirror", "downloads")
            if os.path.isdir(pending) and os.listdir(pending):
                # Partials of a mirror run cut by a kill are kept on purpose (mirroring.md); the
                # final mirror run must have finished them.
                leftovers[f"{m.name} .mirror/downloads"] += 1
                self.fail(f"leftover in {m.name}: {os.listdir(pending)}")
        self.verified, self.leftover_counts = verified, leftovers

    def leftovers(self, home):
        out = []
        for sub in ("staging", "downloads"):
            d = os.path.join(home.path, sub)
            if os.path.isdir(d):
                out += [(sub, os.path.join(d, n)) for n in os.listdir(d)]
        base = os.path.join(home.path, "corpora")
        for dirpath, dirnames, filenames in os.walk(base):
            for n in dirnames + filenames:
                if n.startswith("current.tmp"):
                    out.append(("current.tmp link", os.path.join(dirpath, n)))
            if os.path.basename(dirpath) == "versions":
                current = os.path.join(os.path.dirname(dirpath), "current")
                keep = os.path.basename(os.readlink(current)) if os.path.islink(current) else None
                out += [("old version", os.path.join(dirpath, n)) for n in dirnames if n != keep]
                dirnames[:] = []
        return out

    def memory_checks(self):
        for what, key in (("RSS", "rss_kb"), ("open fds", "fds")):
            w, e = self.warm[key], self.end[key]
            if w and abs(e - w) > 0.10 * w:
                self.fail(f"origin {what} at the end {e} is not within 10 % of {w} after warm-up")

    def metrics(self):
        try:
            with urllib.request.urlopen(f"{self.origin_url}/metrics", timeout=5) as r:
                text = r.read().decode()
        except Exception:
            return {}
        out = {}
        for line in text.splitlines():
            if line.startswith("corpusd_response_bytes_total") or line.startswith("corpusd_requests_total"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out

    def nginx_statuses(self):
        out = collections.Counter()
        try:
            for line in open(os.path.join(self.work, "mirror-b-nginx", "access.log")):
                parts = line.split()
                if len(parts) >= 5:
                    out[parts[-3]] += 1
        except OSError:
            pass
        return out

    def report(self):
        px = self.proxy_totals()
        metrics = getattr(self, "final_metrics", {})
        rows = []

        def section(title):
            rows.append(("", ""))
            rows.append((f"== {title}", ""))

        section(f"soak: {self.args.minutes} min, {self.args.clients} client homes, seed {self.args.seed}")
        rows.append(("publishes (catalog versions signed)", f"{self.events['publishes']} ({len(self.pub_state.history)} in all)"))
        full_ones = sum(1 for h in self.pub_state.history for c, k in h["changed"].items() if h["deltas"].get(c, 0) == 0)
        rows.append(("corpus versions published without a delta", str(full_ones)))
        for k in sorted(self.events):
            if k != "publishes":
                rows.append((k, str(self.events[k])))
        for m in self.mirrors:
            rows.append((f"corpusd mirror runs {m.name}", ", ".join(f"{k} {v}" for k, v in sorted(m.runs.items()))))
        section("operations (ok / failed)")
        for op in sorted({o for o, _ in self.ops}):
            rows.append((op, f"{self.ops[(op, 'ok')]} / {self.ops[(op, 'failed')]}"))
        section("updates and installs by how they arrived")
        for (op, via), n in sorted(self.via.items()):
            rows.append((f"{op} via {via}", str(n)))
        section("faults injected by the proxy (in front of mirror-a)")
        for kind in ("truncate", "stall", "reset"):
            rows.append((kind, str(px[f"faults.{kind}"])))
        rows.append(("connections refused while mirror-a was down", str(px["upstream_down"])))
        section("failures by kind (operation, exit code, error code)")
        if not self.failures:
            rows.append(("none", ""))
        for (op, rc, code), n in sorted(self.failures.items(), key=lambda x: (-x[1], str(x[0]))):
            rows.append((f"{op}: exit {rc} {code}", str(n)))
        section("retries")
        rows.append(("proxy: connections / requests", f"{px['connections']} / {px['requests']}"))
        rows.append(("proxy: requests with Range (resumes)", str(px["range_requests"])))
        rows.append(("proxy: a cut path asked for again", str(px["refetches"])))
        rows.append(("attempts named by failed operations", str(self.attempts_in_failures)))
        section("bytes")
        for via, n in sorted(self.bytes.items()):
            rows.append((f"downloaded by clients via {via}", f"{n:,}"))
        rows.append(("sent by the proxy to clients", f"{px['bytes_to_clients']:,}"))
        for name, value in sorted(metrics.items()):
            if "bytes" in name:
                rows.append((f"origin {name}", f"{int(value):,}"))
        section("requests answered by the origin and by nginx (status: count)")
        statuses = [(n.split('"')[1] if '"' in n else n, int(v)) for n, v in sorted(metrics.items()) if n.startswith("corpusd_requests_total")]
        rows.append(("origin corpusd serve", ", ".join(f"{k}: {v}" for k, v in statuses)))
        rows.append(("mirror-b nginx", ", ".join(f"{k}: {v}" for k, v in sorted(self.nginx_statuses().items()))))
        section("origin corpusd serve: RSS and open fds over time")
        picks = self.samples
        if len(picks) > 12:
            step = len(picks) / 10
            idx = sorted({int(i * step) for i in range(10)} | {i for i, s in enumerate(picks) if s["label"]} | {len(picks) - 1})
            picks = [picks[i] for i in idx]
        for s in picks:
            rows.append((f"t={s['t']:>5} s {s['label']}", f"RSS {s['rss_kb']:>7} kB  fds {s['fds']:>4}  load {s['load']:.1f}"))
        rows.append(("warm-up -> end (at rest)", f"RSS {self.warm['rss_kb']} -> {self.end['rss_kb']} kB, fds {self.warm['fds']} -> {self.end['fds']}"))
        section("final checks")
        rows.append(("homes passing corpus verify", f"{self.verified['ok']} of {len(self.homes)}"))
        rows.append(("leftovers after corpus gc", ", ".join(f"{k} {v}" for k, v in self.leftover_counts.items()) or "0"))
        rows.append(("soak failures", str(len(self.soak_failures))))
        width = max(len(a) for a, _ in rows) + 2
        print()
        for a, b in rows:
            print(f"{a:<{width}}{b}" if b or not a.startswith("==") else a)
        for f in self.soak_failures[:50]:
            print(f"FAILED: {f}")
        print(f"\nresult: {'FAILED' if self.soak_failures else 'passed'} (work folder {self.work})")
        with open(os.path.join(self.work, "report.json"), "w") as f:
            json.dump({"failures": self.soak_failures, "samples": self.samples, "publishes": self.pub_state.history,
                       "ops": {f"{a} {b}": v for (a, b), v in self.ops.items()},
                       "failures_by_kind": {f"{a} {b} {c}": v for (a, b, c), v in self.failures.items()},
                       "proxy": dict(px)}, f, indent=1, sort_keys=True)

    def shutdown(self):
        services = [self.proxy] if hasattr(self, "proxy") else []
        for m in getattr(self, "mirrors", []):
            services += m.services
        if hasattr(self, "origin"):
            services.append(self.origin)
        for s in services:
            s.stop()


def main():
    p = argparse.ArgumentParser(description="the soak with faults (docs/soak.md)")
    p.add_argument("--bin", required=True, help="folder of the release corpus and corpusd")
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--publish-every", type=float, default=None, help="seconds between publishes (default: 3 min, 1 min for runs under 10 min)")
    p.add_argument("--kill-every", type=float, default=None, help="seconds between mirror kills (default: 4 min, 80 s for runs under 10 min)")
    p.add_argument("--warmup", type=float, default=180, help="seconds before the warm-up sample (at most a quarter of the run)")
    p.add_argument("--sample-every", type=float, default=5)
    p.add_argument("--keep", action="store_true", help="keep the work folder even when the soak passes")
    args = p.parse_args()
    short = args.minutes < 10
    args.publish_every = args.publish_every or (60 if short else 180)
    args.kill_every = args.kill_every or (80 if short else 240)
    soak = Soak(args)
    try:
        soak.setup()
        soak.run()
        soak.memory_checks()
        soak.final_checks()
        soak.final_metrics = soak.metrics()
    except Exception as e:
        soak.fail(f"soak script error: {e!r}")
        raise
    finally:
        soak.shutdown()
        if hasattr(soak, "t0") and hasattr(soak, "end"):
            soak.report()
    if not soak.soak_failures and not args.keep:
        shutil.rmtree(soak.work, ignore_errors=True)
    sys.exit(1 if soak.soak_failures else 0)


if __name__ == "__main__":
    main()
