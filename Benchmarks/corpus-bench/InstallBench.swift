import CorpusEngine
import CorpusFormat
import CorpusPublisher
import Foundation

/// `corpus-bench install [--work DIR] [--rounds N] [--bin DIR]`
///
/// Installing a 1 GiB corpus end to end, against a naive script that does less with the same
/// bytes. Once (cached under `--work`, default `.bench/install`): a signed bundle whose stored
/// `vectors.bin` is about 1 GiB (262,144 passages of 4,096 int8 dimensions), published with
/// `corpusd publish`. Each run: `corpusd serve` on loopback, then N alternating rounds of
/// - `corpus install` (release build, a fresh `--home` each time): download with hashing,
///   bundle and member verification, extraction, pack check, the atomic swap, fsyncs;
/// - the same install through the library (`corpus-bench install-client`) over libcurl and over
///   URLSession, alternating; URLSession's time is reported as a ratio to libcurl's (no goal);
/// - the peer: `curl -o F URL && openssl dgst -sha256 F && unzip -q F -d DIR`.
/// Dirty pages are flushed (untimed) between runs. Prints `key=value` lines and `RESULT` lines:
/// best-of-N ratio corpus / peer (goal <= 1.0) and corpus's peak RSS (goal <= 64 MiB).
enum InstallBench {
    static let passages = 1 << 18
    static let dimension = 4096

    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let work = options.folder("--work", default: ".bench/install")
        let rounds = options.int("--rounds", default: 3)
        let bin = options.value("--bin") ?? BenchProcess.productsDirectory
        try options.refuseUnread()
        let corpus = "\(bin)/corpus", corpusd = "\(bin)/corpusd"

        let tree = try prepareTree(work: work, corpusd: corpusd)
        let bundles = try FileManager.default.contentsOfDirectory(atPath: "\(tree)/bundles").filter { $0.hasSuffix(".corpus.zip") }
        guard bundles.count == 1, let bundleSize = FileIO.fileSize("\(tree)/bundles/\(bundles[0])") else {
            throw BuildBench.BenchError("expected one bundle in \(tree)/bundles")
        }
        print("bundle_bytes=\(bundleSize)")

        let server = try BenchServer(corpusd: corpusd, root: tree)
        defer { server.stop() }
        let home = "\(work)/home", naive = "\(work)/naive"
        var corpusTimes: [Double] = [], naiveTimes: [Double] = [], rss: [Int] = []
        var libraryTimes: [String: [Double]] = [:], libraryRSS: [String: [Int]] = [:]
        let bench = "\(bin)/corpus-bench"
        /// One install through the library into a fresh home over `transport` (ClientInstallBench).
        func libraryInstall(_ transport: String) throws {
            FileIO.remove(home)
            BenchProcess.flushDisk()
            let r = try BenchProcess.run(bench, ["install-client", "--home", home, "--remote", server.url, "--trust", "\(tree)/keys/root.pub",
                                                 "--id", "big", "--transport", transport], measureRSS: true)
            guard r.status == 0 else { throw BuildBench.BenchError("install-client over \(transport) exited \(r.status): \(r.stderr)") }
            guard FileIO.fileSize("\(home)/corpora/bench/big/current/vectors.bin") != nil else {
                throw BuildBench.BenchError("install-client over \(transport) left no vectors.bin")
            }
            libraryTimes[transport, default: []].append(r.seconds)
            libraryRSS[transport, default: []].append(r.peakRSSKiB ?? 0)
            FileIO.remove(home)
        }
        for round in 1...rounds {
            FileIO.remove(home)
            try BenchProcess.check(corpus, ["--home", home, "--quiet", "remote", "add", "bench", server.url, "--trust", "\(tree)/keys/root.pub"])
            BenchProcess.flushDisk()
            let c = try BenchProcess.run(corpus, ["--home", home, "--quiet", "install", "big"], measureRSS: true)
            guard c.status == 0 else { throw BuildBench.BenchError("corpus install exited \(c.status): \(c.stderr)") }
            guard FileIO.fileSize("\(home)/corpora/bench/big/current/vectors.bin") != nil else {
                throw BuildBench.BenchError("corpus install left no vectors.bin")
            }
            corpusTimes.append(c.seconds)
            rss.append(c.peakRSSKiB ?? 0)
            FileIO.remove(home)
            // The library over each transport, in alternating order from round to round.
            for transport in round % 2 == 1 ? ["curl", "urlsession"] : ["urlsession", "curl"] { try libraryInstall(transport) }

            FileIO.remove(naive)
            try FileIO.createDirectory(naive)
            BenchProcess.flushDisk()
            let script = "curl -sS -o \(naive)/bundle.zip \(server.url)/bundles/\(bundles[0]) && openssl dgst -sha256 \(naive)/bundle.zip >/dev/null && unzip -q \(naive)/bundle.zip -d \(naive)/out"
            let n = try BenchProcess.run("/bin/bash", ["-c", script])
            guard n.status == 0 else { throw BuildBench.BenchError("naive script exited \(n.status): \(n.stderr)") }
            naiveTimes.append(n.seconds)
            FileIO.remove(naive)
            BenchProcess.flushDisk()
            print(String(format: "round_%d corpus_install_s=%.2f naive_s=%.2f corpus_peak_rss_mib=%.1f library_curl_s=%.2f library_urlsession_s=%.2f",
                         round, c.seconds, n.seconds, Double(c.peakRSSKiB ?? 0) / 1024, libraryTimes["curl"]!.last!, libraryTimes["urlsession"]!.last!))
        }
        let best = corpusTimes.min()!, peer = naiveTimes.min()!
        let peakMiB = Double(rss.max()!) / 1024
        print(String(format: "corpus_install_best_s=%.2f", best))
        print(String(format: "naive_best_s=%.2f", peer))
        print(String(format: "install_vs_naive=%.2f (goal <= 1.00)", best / peer))
        print(String(format: "corpus_peak_rss_mib=%.1f (goal <= 64)", peakMiB))
        BenchProcess.result("install 1 GiB (best of \(rounds)) vs curl+openssl+unzip", best, "s", peer: peer, ratio: best / peer, goal: "<=1.0x")
        BenchProcess.result("install peak RSS", peakMiB, "MiB", goal: "<=64")
        // The URLSession transport against libcurl, both through the library (docs/apple.md): reported, no goal.
        let curlBest = libraryTimes["curl"]!.min()!, sessionBest = libraryTimes["urlsession"]!.min()!
        let curlRSS = Double(libraryRSS["curl"]!.max()!) / 1024, sessionRSS = Double(libraryRSS["urlsession"]!.max()!) / 1024
        print(String(format: "library_curl_best_s=%.2f library_urlsession_best_s=%.2f urlsession_vs_curl=%.2f", curlBest, sessionBest, sessionBest / curlBest))
        print(String(format: "library_curl_peak_rss_mib=%.1f library_urlsession_peak_rss_mib=%.1f", curlRSS, sessionRSS))
        BenchProcess.result("install 1 GiB through the library, URLSession vs libcurl transport (best of \(rounds))", sessionBest, "s",
                            peer: curlBest, ratio: sessionBest / curlBest, goal: "report")
        BenchProcess.result("install peak RSS through the library over URLSession (libcurl: \(String(format: "%.1f", curlRSS)) MiB)", sessionRSS, "MiB", goal: "report")
    }

    /// The published tree holding the one big bundle, built once.
    static func prepareTree(work: String, corpusd: String) throws -> String {
        let tree = "\(work)/public", key = "\(work)/keys/bench.key"
        if FileIO.exists("\(tree)/catalog.json"), let age = modificationAge("\(tree)/catalog.json"), age < 7 * 86400 {
            return tree
        }
        if !FileIO.exists(key) { try BenchProcess.check(corpusd, ["keygen", "--out", "\(work)/keys", "--name", "bench"]) }
        let bundle = "\(work)/big.corpus.zip"
        if !FileIO.exists(bundle) {
            print("building the 1 GiB bundle once under \(work) ...")
            let src = "\(work)/src"
            FileIO.remove(src)
            try writeSources(src)
            // Transfer, verification and extraction against curl+openssl+unzip: a pack that holds its
            // index (`--index bundle`), so no indexing at install is timed against a peer that does none.
            var options = BuildOptions(source: src, id: "big", version: CorpusVersion("1")!, title: "Install benchmark")
            options.indexAtInstall = false
            _ = try CorpusBuilder.build(options, key: try SecretKey(contentsOf: key), output: bundle, embedder: RandomEmbedder(dimension: dimension))
            FileIO.remove(src)
        }
        try FileIO.createDirectory("\(work)/catalog")
        let catalog = #"{"id":"bench","title":"Install benchmark","corpora":[{"id":"big","version":"1","title":"Big","bundle":"../big.corpus.zip","access":"free"}]}"#
        try FileIO.writeAtomically(Data(catalog.utf8), to: "\(work)/catalog/catalog.json")
        // A fresh tree each time it is (re)published, so an expired catalog is never served.
        FileIO.remove(tree)
        try BenchProcess.check(corpusd, ["publish", "\(work)/catalog", "--out", tree, "--key", key, "--expires", "30d"])
        return tree
    }

    static func modificationAge(_ path: String) -> TimeInterval? {
        guard let date = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
        return Date().timeIntervalSince(date)
    }

    /// 512 Markdown files of 512 one-paragraph sections each: one passage per section.
    static func writeSources(_ dir: String) throws {
        var rng = BenchRandom(seed: 7)
        let words = BuildBench.makeVocabulary(&rng, count: 2_000)
        let perFile = 512
        for f in 0..<(passages / perFile) {
            var text = "# File \(f)\n\n"
            for s in 0..<perFile {
                text += "## Section \(s)\n\n"
                for _ in 0..<8 { text += words[Int(rng.next() % UInt64(words.count))] + " " }
                text += "\(f)-\(s).\n\n"
            }
            try FileIO.createDirectory("\(dir)/\(f / 64)")
            try FileIO.writeAtomically(Data(text.utf8), to: "\(dir)/\(f / 64)/f\(f).md")
        }
    }
}

/// Pseudo-random unit vectors seeded by each text: a stand-in model whose output does not
/// compress, so the stored `vectors.bin` is as large as a real one of this shape.
struct RandomEmbedder: Embedder {
    let dimension: Int
    var id: String { "bench-random-\(dimension)" }

    func embed(_ texts: [String]) throws -> [[Float]] {
        texts.map { text in
            var state: UInt64 = 0xcbf29ce484222325
            for b in text.utf8 { state = (state ^ UInt64(b)) &* 0x100000001b3 }
            state |= 1
            var v = [Float](repeating: 0, count: dimension)
            for i in 0..<dimension {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                v[i] = Float(Int32(truncatingIfNeeded: state)) / 2_147_483_648
            }
            return v
        }
    }
}
