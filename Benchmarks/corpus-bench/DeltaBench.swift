import CorpusFormat
import CorpusTestSupport
import Foundation

/// `corpus-bench delta [--work DIR] [--rounds N] [--bin DIR] [--passages N]`
///
/// Updating a corpus of 100,000 generated passages (1,000 files, `BuildBench.generate`) from
/// version 1 to version 2 when 1 % of its documents change, 10 %, and one passage, each published
/// with the release `corpusd publish` (which writes the delta), in one run:
/// - the delta's bytes against the full bundle's (goal for 1 %: at most 0.02);
/// - the same pair of bundles updated by **zsync** (`zsyncmake`, then `zsync -i OLD`) and by
///   **casync** (`casync make`, then `casync extract --seed=OLD`), both fetching from nginx on
///   loopback, their bytes counted from nginx's access log (goal for 1 %: the delta at least 10
///   times fewer bytes than the better of the two);
/// - `corpus sync` by delta from a home holding version 1 against `corpus install` of version 2
///   into a fresh home, both from `corpusd serve` on loopback, alternating, medians of N rounds
///   (goal for 1 %: at most 0.5).
/// And the install-time cost of the default bundle (the index built at install): version 1 also
/// published with `"index": "bundle"`, both bundles' sizes, and `corpus install` of each into a
/// fresh home, alternating, medians of N rounds.
enum DeltaBench {
    struct Variant {
        let name: String
        let label: String
        /// Files whose every paragraph is rewritten (every n-th file), or nil for one paragraph.
        let everyNthFile: Int?
        let goals: Bool
    }

    static let variants = [
        Variant(name: "1pct", label: "1% of documents", everyNthFile: 100, goals: true),
        Variant(name: "10pct", label: "10% of documents", everyNthFile: 10, goals: false),
        Variant(name: "one", label: "one passage", everyNthFile: nil, goals: false),
    ]

    static func run(_ args: [String]) throws {
        var work = ".bench/delta", rounds = 3, bin = BenchProcess.productsDirectory, passages = 100_000
        var i = 0
        while i + 1 < args.count {
            switch args[i] {
            case "--work": work = args[i + 1]
            case "--rounds": rounds = Int(args[i + 1]) ?? rounds
            case "--bin": bin = args[i + 1]
            case "--passages": passages = Int(args[i + 1]) ?? passages
            default: throw BuildBench.BenchError("unknown option \(args[i])")
            }
            i += 2
        }
        if !work.hasPrefix("/") { work = FileManager.default.currentDirectoryPath + "/" + work }
        let corpus = "\(bin)/corpus", corpusd = "\(bin)/corpusd"
        FileIO.remove(work)
        try FileIO.createDirectory(work)
        try BenchProcess.check(corpusd, ["keygen", "--out", "\(work)/keys", "--name", "bench"])
        _ = try BuildBench.generate(passages: passages, files: 1_000, into: "\(work)/src-1", csv: "\(work)/unused.csv")
        try publish(work: work, corpusd: corpusd, version: "1", source: "\(work)/src-1", tree: "\(work)/tree-1")
        print("passages=\(passages)")

        // A home holding version 1, copied for every round.
        let v1Server = try BenchServer(corpusd: corpusd, root: "\(work)/tree-1")
        let homeV1 = "\(work)/home-v1"
        try BenchProcess.check(corpus, ["--home", homeV1, "--quiet", "remote", "add", "bench", v1Server.url, "--trust", "\(work)/keys/bench.pub"])
        try BenchProcess.check(corpus, ["--home", homeV1, "--quiet", "install", "corpus"])
        v1Server.stop()
        let v1Bundle = try bundle(tree: "\(work)/tree-1", version: "1")
        try indexCost(work: work, corpus: corpus, corpusd: corpusd, source: "\(work)/src-1", bundle: v1Bundle, rounds: rounds)

        let web = try BenchNginx(root: "\(work)/www")
        defer { web.stop() }
        for v in variants {
            try measure(v, work: work, corpus: corpus, corpusd: corpusd, homeV1: homeV1, v1Bundle: v1Bundle, web: web, rounds: rounds)
        }
    }

    static func measure(_ v: Variant, work: String, corpus: String, corpusd: String, homeV1: String, v1Bundle: String,
                        web: BenchNginx, rounds: Int) throws {
        let src = "\(work)/src-\(v.name)", tree = "\(work)/tree-\(v.name)"
        try BenchProcess.check("/bin/cp", ["-a", "\(work)/src-1", src])
        try change(src, v)
        try BenchProcess.check("/bin/cp", ["-a", "\(work)/tree-1", tree])
        try publish(work: work, corpusd: corpusd, version: "2", source: src, tree: tree)
        let catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalogs/2.json")))
        let entry = catalog.corpora[0]
        guard let delta = entry.deltas?.first else { throw BuildBench.BenchError("\(v.label): corpusd publish wrote no delta") }
        let full = Double(entry.bundle.size), deltaBytes = Double(delta.size)
        print("\(v.name)_bundle_bytes=\(entry.bundle.size) \(v.name)_delta_bytes=\(delta.size)")

        let zsync = try zsyncBytes(v, old: v1Bundle, new: "\(tree)/\(entry.bundle.path)", web: web)
        let casync = try casyncBytes(v, old: v1Bundle, new: "\(tree)/\(entry.bundle.path)", web: web)
        print("\(v.name)_zsync_bytes=\(Int(zsync)) \(v.name)_casync_bytes=\(Int(casync))")

        let server = try BenchServer(corpusd: corpusd, root: tree)
        defer { server.stop() }
        var syncs: [Double] = [], installs: [Double] = []
        let home = "\(work)/home", fresh = "\(work)/home-fresh"
        for round in 1...rounds {
            FileIO.remove(home)
            try BenchProcess.check("/bin/cp", ["-a", homeV1, home])
            try BenchProcess.check(corpus, ["--home", home, "--quiet", "remote", "add", "bench", server.url, "--trust", "\(work)/keys/bench.pub"])
            BenchProcess.flushDisk()
            let s = try BenchProcess.run(corpus, ["--home", home, "--json", "sync"])
            guard s.status == 0, s.stdout.contains(#""via":"delta""#) else { throw BuildBench.BenchError("\(v.label): sync did not go by delta: \(s.stdout) \(s.stderr)") }
            syncs.append(s.seconds)
            FileIO.remove(fresh)
            try BenchProcess.check(corpus, ["--home", fresh, "--quiet", "remote", "add", "bench", server.url, "--trust", "\(work)/keys/bench.pub"])
            BenchProcess.flushDisk()
            let f = try BenchProcess.run(corpus, ["--home", fresh, "--quiet", "install", "corpus"])
            guard f.status == 0 else { throw BuildBench.BenchError("\(v.label): install exited \(f.status): \(f.stderr)") }
            installs.append(f.seconds)
            print(String(format: "%@_round_%d sync_by_delta_s=%.2f full_install_s=%.2f", v.name, round, s.seconds, f.seconds))
        }
        FileIO.remove(home)
        FileIO.remove(fresh)
        let sync = BenchProcess.median(syncs), install = BenchProcess.median(installs)
        let better = min(zsync, casync)
        BenchProcess.result("delta, \(v.label): bytes / full bundle", deltaBytes, "B", peer: full, ratio: deltaBytes / full, goal: v.goals ? "<=0.02x" : "-")
        BenchProcess.result("zsync, \(v.label): bytes / full bundle", zsync, "B", peer: full, ratio: zsync / full, goal: "-")
        BenchProcess.result("casync, \(v.label): bytes / full bundle", casync, "B", peer: full, ratio: casync / full, goal: "-")
        BenchProcess.result("delta, \(v.label): times fewer bytes than the better of zsync and casync (speedup)", deltaBytes, "B",
                            peer: better, ratio: better / deltaBytes, goal: v.goals ? ">=10x" : "-")
        BenchProcess.result("delta, \(v.label): corpus sync by delta / corpus install (median of \(rounds))", sync, "s", peer: install,
                            ratio: sync / install, goal: v.goals ? "<=0.5x" : "-")
    }

    /// Version 1 published again with its index in the bundle, then `corpus install` of the default
    /// bundle (`bundle`, the index built at install) and of that one into fresh homes, alternating.
    static func indexCost(work: String, corpus: String, corpusd: String, source: String, bundle: String, rounds: Int) throws {
        let tree = "\(work)/tree-1-indexed"
        try publish(work: work, corpusd: corpusd, version: "1", source: source, tree: tree, index: "bundle")
        let indexed = try Self.bundle(tree: tree, version: "1")
        let sizes = (Double(FileIO.fileSize(bundle) ?? 0), Double(FileIO.fileSize(indexed) ?? 0))
        print("default_bundle_bytes=\(Int(sizes.0)) indexed_bundle_bytes=\(Int(sizes.1))")
        var times: (install: [Double], bundle: [Double]) = ([], [])
        let home = "\(work)/home-index-cost"
        for round in 1...rounds {
            for (root, isDefault) in [("\(work)/tree-1", true), (tree, false)] {
                let server = try BenchServer(corpusd: corpusd, root: root)
                defer { server.stop() }
                FileIO.remove(home)
                try BenchProcess.check(corpus, ["--home", home, "--quiet", "remote", "add", "bench", server.url, "--trust", "\(work)/keys/bench.pub"])
                BenchProcess.flushDisk()
                let r = try BenchProcess.run(corpus, ["--home", home, "--quiet", "install", "corpus"])
                guard r.status == 0 else { throw BuildBench.BenchError("install from \(root) exited \(r.status): \(r.stderr)") }
                if isDefault { times.install.append(r.seconds) } else { times.bundle.append(r.seconds) }
            }
            print(String(format: "index_round_%d install_default_s=%.2f install_index_bundle_s=%.2f", round, times.install.last!, times.bundle.last!))
        }
        FileIO.remove(home)
        let a = BenchProcess.median(times.install), b = BenchProcess.median(times.bundle)
        BenchProcess.result("bundle of 100,000 passages, index built at install (the default) / index in the bundle", sizes.0, "B",
                            peer: sizes.1, ratio: sizes.0 / sizes.1, goal: "-")
        BenchProcess.result("corpus install of 100,000 passages: index built at install / index in the bundle (median of \(rounds))", a, "s",
                            peer: b, ratio: a / b, goal: "-")
    }

    /// `corpusd publish` of one corpus `corpus` at `version` built from `source` into `tree`
    /// (`index`: the catalog entry's, nil for the default).
    static func publish(work: String, corpusd: String, version: String, source: String, tree: String, index: String? = nil) throws {
        let catalog = "\(work)/catalog-\(version)-\((tree as NSString).lastPathComponent)"
        try FileIO.createDirectory(catalog)
        let indexField = index.map { #","index":"\#($0)""# } ?? ""
        let json = #"{"id":"bench","title":"Delta benchmark","corpora":[{"id":"corpus","version":"\#(version)","source":"\#(source)","access":"free"\#(indexField)}]}"#
        try FileIO.writeAtomically(Data(json.utf8), to: "\(catalog)/catalog.json")
        let start = Date()
        try BenchProcess.check(corpusd, ["publish", catalog, "--out", tree, "--key", "\(work)/keys/bench.key", "--quiet"])
        print(String(format: "publish_%@_%@_s=%.1f", version, (tree as NSString).lastPathComponent, Date().timeIntervalSince(start)))
    }

    static func bundle(tree: String, version: String) throws -> String {
        let c = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalogs/\(version).json")))
        return "\(tree)/\(c.corpora[0].bundle.path)"
    }

    /// Rewrites every paragraph of every n-th file with new generated text, or one paragraph of one file.
    static func change(_ src: String, _ v: Variant) throws {
        var rng = BenchRandom(seed: 4242)
        let vocabulary = BuildBench.makeVocabulary(&rng, count: 4_000)
        let files = try FileManager.default.subpathsOfDirectory(atPath: src).filter { $0.hasSuffix(".md") || $0.hasSuffix(".txt") }.sorted()
        let chosen = v.everyNthFile.map { n in files.enumerated().filter { $0.offset % n == 0 }.map(\.element) } ?? [files[0]]
        for name in chosen {
            let path = "\(src)/\(name)"
            var paragraphs = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n\n")
            // The first paragraph is the title; headings stay (the sections stay, their text changes).
            var rewritten = 0
            for p in 1..<paragraphs.count where !paragraphs[p].hasPrefix("#") && !paragraphs[p].isEmpty {
                paragraphs[p] = BuildBench.sentence(&rng, vocabulary, minLength: 560, maxLength: 900)
                rewritten += 1
                if v.everyNthFile == nil { break }
            }
            try FileIO.writeAtomically(Data(paragraphs.joined(separator: "\n\n").utf8), to: path)
        }
    }

    /// Bytes zsync fetches to turn `old` into `new`, from nginx.
    static func zsyncBytes(_ v: Variant, old: String, new: String, web: BenchNginx) throws -> Double {
        let dir = "\(web.root)/zsync-\(v.name)"
        try FileIO.createDirectory(dir)
        try BenchProcess.check("/bin/ln", ["-f", new, "\(dir)/new.corpus.zip"])
        try BenchProcess.check("/usr/bin/zsyncmake", ["-o", "\(dir)/new.zsync", "-u", "new.corpus.zip", "\(dir)/new.corpus.zip"])
        let out = "\(web.root)/../zsync-\(v.name).out"
        FileIO.remove(out)
        let mark = web.mark()
        try BenchProcess.check("/usr/bin/zsync", ["-q", "-i", old, "-o", out, "\(web.url)/zsync-\(v.name)/new.zsync"])
        guard (try? SHA256.hash(fileAt: out).digest) == (try? SHA256.hash(fileAt: new).digest) else { throw BuildBench.BenchError("zsync produced another file") }
        FileIO.remove(out)
        return Double(web.bytesSent(since: mark, under: "/zsync-\(v.name)/"))
    }

    /// Bytes casync fetches to turn `old` into `new` (chunks `old` does not hold), from nginx.
    static func casyncBytes(_ v: Variant, old: String, new: String, web: BenchNginx) throws -> Double {
        let dir = "\(web.root)/casync-\(v.name)"
        try FileIO.createDirectory(dir)
        try BenchProcess.check("/usr/bin/casync", ["make", "--store=\(dir)/store", "\(dir)/new.caibx", new])
        let out = "\(web.root)/../casync-\(v.name).out"
        FileIO.remove(out)
        let mark = web.mark()
        try BenchProcess.check("/usr/bin/casync", ["extract", "--store=\(web.url)/casync-\(v.name)/store", "--seed=\(old)",
                                                   "\(web.url)/casync-\(v.name)/new.caibx", out])
        guard (try? SHA256.hash(fileAt: out).digest) == (try? SHA256.hash(fileAt: new).digest) else { throw BuildBench.BenchError("casync produced another file") }
        FileIO.remove(out)
        return Double(web.bytesSent(since: mark, under: "/casync-\(v.name)/"))
    }
}

/// A plain nginx serving a folder on loopback (ranges and multipart ranges, as zsync asks for),
/// logging the body bytes of every response so a benchmark can count what a client fetched.
final class BenchNginx {
    let root: String
    let runtime: String
    let port: UInt16
    private var daemon: BenchDaemon?
    var url: String { "http://127.0.0.1:\(port)" }
    var log: String { "\(runtime)/access.log" }

    init(root: String) throws {
        self.root = root
        runtime = root + "-nginx"
        try FileIO.createDirectory(root)
        try FileIO.createDirectory(runtime)
        port = freeLoopbackPort()
        let conf = """
        user root root;
        worker_processes 1;
        pid \(runtime)/nginx.pid;
        error_log \(runtime)/error.log;
        events { worker_connections 64; }
        http {
            log_format bytes '$request_uri $status $body_bytes_sent';
            access_log \(log) bytes;
            default_type application/octet-stream;
            client_body_temp_path \(runtime)/body; proxy_temp_path \(runtime)/proxy; fastcgi_temp_path \(runtime)/fastcgi;
            uwsgi_temp_path \(runtime)/uwsgi; scgi_temp_path \(runtime)/scgi;
            server { listen 127.0.0.1:\(port); root \(root); }
        }
        """
        try FileIO.writeAtomically(Data(conf.utf8), to: "\(runtime)/nginx.conf")
        daemon = try BenchDaemon("/usr/sbin/nginx", ["-p", runtime, "-e", "\(runtime)/error.log", "-c", "\(runtime)/nginx.conf", "-g", "daemon off;"],
                                 probe: [url], name: "nginx on port \(port)")
    }

    func stop() { daemon?.stop() }

    /// The access log's length now, to count only what follows.
    func mark() -> Int { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").utf8.count }

    /// Body bytes nginx sent for requests under `prefix` since `mark`.
    func bytesSent(since mark: Int, under prefix: String) -> Int {
        usleep(200_000) // nginx writes a line when the response ends
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return String(text.utf8.dropFirst(mark))!.split(separator: "\n").reduce(0) { sum, line in
            let f = line.split(separator: " ")
            guard f.count == 3, f[0].hasPrefix(prefix) else { return sum }
            return sum + (Int(f[2]) ?? 0)
        }
    }
}
