import CorpusFormat
import Foundation

/// `corpus-bench sync [--work DIR] [--corpora N] [--runs N] [--bin DIR]`
///
/// `corpus sync` with nothing to do: N installed corpora (default 100, real small bundles) and a
/// catalog that has not changed. Once (cached under `--work`, default `.bench/sync`): a catalog
/// folder of N one-document corpora, published with `corpusd publish`. Each run: `corpusd serve`
/// on loopback, a fresh home with every corpus installed by `corpus install` (untimed), then
/// `--runs` (default 15) timed runs of the whole `corpus sync --json` process (release build).
/// The server's `/metrics` before and after count the requests: each sync must make exactly one,
/// the conditional GET of `catalog.json`, answered 304. Goal: median <= 150 ms.
enum SyncBench {
    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let work = options.folder("--work", default: ".bench/sync")
        let corpora = options.int("--corpora", default: 100)
        let runs = options.int("--runs", default: 15)
        let bin = options.value("--bin") ?? BenchProcess.productsDirectory
        try options.refuseUnread()
        let corpus = "\(bin)/corpus", corpusd = "\(bin)/corpusd"
        let ids = (0..<corpora).map { String(format: "c%03d", $0) }
        let tree = try prepareTree(work: work, ids: ids, corpusd: corpusd)

        let server = try BenchServer(corpusd: corpusd, root: tree)
        defer { server.stop() }
        let home = "\(work)/home"
        FileIO.remove(home)
        try BenchProcess.check(corpus, ["--home", home, "--quiet", "remote", "add", "bench", server.url, "--trust", "\(tree)/keys/root.pub"])
        let install = try BenchProcess.run(corpus, ["--home", home, "--quiet", "install"] + ids)
        guard install.status == 0 else { throw BuildBench.BenchError("corpus install exited \(install.status): \(install.stderr.prefix(2000))") }
        print(String(format: "install_%d_corpora_s=%.2f", corpora, install.seconds))
        BenchProcess.flushDisk()

        let before = try server.requestsByStatus()
        var times: [Double] = []
        for _ in 0..<runs {
            let s = try BenchProcess.run(corpus, ["--home", home, "--json", "sync"])
            guard s.status == 0, s.stdout.contains("\"changed\":0") else {
                throw BuildBench.BenchError("corpus sync exited \(s.status) or changed something: \(s.stdout.prefix(500)) \(s.stderr.prefix(500))")
            }
            times.append(s.seconds)
        }
        let after = try server.requestsByStatus()
        // The first /metrics request is itself counted once it completed; nothing else ran.
        var delta: [Int: Int] = [:]
        for (status, n) in after { delta[status] = n - (before[status] ?? 0) }
        delta[200, default: 0] -= 1
        delta = delta.filter { $0.value != 0 }
        let perSync = Double(delta.values.reduce(0, +)) / Double(runs)
        let median = BenchProcess.median(times) * 1000
        print(String(format: "sync_median_ms=%.1f (goal <= 150)", median))
        print(String(format: "sync_min_ms=%.1f", times.min()! * 1000))
        print("requests_by_status=\(delta.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))")
        print(String(format: "requests_per_sync=%.2f (must be 1, a 304)", perSync))
        BenchProcess.result("sync, \(corpora) corpora, unchanged catalog (median of \(runs))", median, "ms", goal: "<=150")
        BenchProcess.result("sync HTTP requests per run (304s)", perSync, "req", goal: delta == [304: runs] ? "==1" : "==1 (saw \(delta))")
        FileIO.remove(home)
    }

    /// A tree of `ids.count` small corpora, published once (each built from one Markdown file).
    static func prepareTree(work: String, ids: [String], corpusd: String) throws -> String {
        let tree = "\(work)/public", catalogDir = "\(work)/catalog-\(ids.count)", key = "\(work)/keys/bench.key"
        let marker = "\(work)/published-\(ids.count)-corpora"
        if FileIO.exists(marker), let age = InstallBench.modificationAge("\(tree)/catalog.json"), age < 7 * 86400 { return tree }
        if !FileIO.exists(key) { try BenchProcess.check(corpusd, ["keygen", "--out", "\(work)/keys", "--name", "bench"]) }
        FileIO.remove(catalogDir)
        var rng = BenchRandom(seed: 11)
        let words = BuildBench.makeVocabulary(&rng, count: 1_000)
        var entries: [String] = []
        for id in ids {
            var text = "# Corpus \(id)\n\n"
            for s in 0..<5 {
                text += "## Part \(s)\n\n"
                for _ in 0..<60 { text += words[Int(rng.next() % UInt64(words.count))] + " " }
                text += "\n\n"
            }
            try FileIO.createDirectory("\(catalogDir)/\(id)")
            try FileIO.writeAtomically(Data(text.utf8), to: "\(catalogDir)/\(id)/notes.md")
            entries.append(#"{"id":"\#(id)","version":"1","title":"Corpus \#(id)","source":"\#(id)","access":"free"}"#)
        }
        let catalog = #"{"id":"bench-sync","title":"Sync benchmark","corpora":[\#(entries.joined(separator: ","))]}"#
        try FileIO.writeAtomically(Data(catalog.utf8), to: "\(catalogDir)/catalog.json")
        FileIO.remove(tree)
        try BenchProcess.check(corpusd, ["publish", catalogDir, "--out", tree, "--key", key, "--expires", "30d"])
        try FileIO.writeAtomically(Data(), to: marker)
        return tree
    }
}
