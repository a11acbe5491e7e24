import Foundation
import CorpusFormat
import CorpusEngine

/// `corpus-bench engine`: the retrieval engine on a corpus the size of a large real one
/// (364,000 passages, 384-dim int8 vectors), generated once and cached under `.bench/engine/`.
///
/// Prints `key value` lines: open time, vector scan p50/p95 (top-10, one query), hybrid search
/// p50/p95 through `CorpusLibrary`, and RSS after 100 and 1,000 hybrid queries. The queries'
/// vectors are written beside the corpus so `scripts/numpy_scan.py` times NumPy on the same work.
enum EngineBench {
    struct Config {
        var dir = ".bench/engine"
        var passages = 364_000
        var dimension = 384
        var queries = 1_000
        var scanQueries = 300
        var prepareOnly = false
        /// Only the open and scan figures, for a second round alternating with the NumPy peer.
        var scanOnly = false
    }

    static func run(args: [String]) async throws {
        var c = Config()
        var options = BenchArguments(args)
        c.dir = options.value("--dir") ?? c.dir
        c.passages = options.int("--passages", default: c.passages)
        c.queries = max(100, options.int("--queries", default: c.queries))
        c.scanQueries = options.int("--scan-queries", default: c.scanQueries)
        c.prepareOnly = options.flag("--prepare-only")
        c.scanOnly = options.flag("--scan-only")
        do { try options.refuseUnread() } catch {
            fail("\(error); use --dir DIR --passages N --queries N --scan-queries N --prepare-only --scan-only")
        }
        let corpus = SyntheticCorpus(config: c)
        if !corpus.isCached {
            let t = Clock.now
            try corpus.generate()
            print("engine.generate_s \(format(Clock.seconds(since: t)))")
        }
        if c.prepareOnly { return }
        try await measure(corpus, c)
    }

    static func measure(_ corpus: SyntheticCorpus, _ c: Config) async throws {
        let (texts, vectors) = try corpus.loadQueries()
        print("engine.passages \(c.passages)")
        print("engine.dimension \(c.dimension)")
        print("engine.cores \(ProcessInfo.processInfo.activeProcessorCount)")

        // Open: manifest, pack checks (schema, meta, counts), vector header; no integrity check.
        var opens: [Double] = []
        var opened: InstalledCorpus?
        for _ in 0..<7 {
            let t = Clock.now
            opened = try InstalledCorpus(folder: corpus.versionFolder, remote: SyntheticCorpus.remote, expectedID: SyntheticCorpus.id)
            opens.append(Clock.ms(since: t))
        }
        print("engine.open_first_ms \(format(opens[0]))")
        print("engine.open_p50_ms \(format(percentile(opens, 50)))")

        // Vector scan alone, top-10 as numpy_scan.py computes it. A warm-up pass faults the mapping in.
        let index = opened!.vectors
        _ = index.nearest(to: vectors[0], limit: 10)
        var scans: [Double] = []
        for q in 0..<min(c.scanQueries, vectors.count) {
            let t = Clock.now
            let top = index.nearest(to: vectors[q], limit: 10)
            scans.append(Clock.ms(since: t))
            precondition(!top.isEmpty)
        }
        print("engine.scan_p50_ms \(format(percentile(scans, 50)))")
        print("engine.scan_p95_ms \(format(percentile(scans, 95)))")
        if c.scanOnly { return }

        // The lexical channel alone: the BM25 ladder at depth 50, then details and snippets of 10.
        var lexical: [Double] = []
        for text in texts.prefix(c.scanQueries) {
            let t = Clock.now
            let tokens = FTSQuery.tokens(text)
            let rows = try opened!.lexicalSearch(tokens: tokens, limit: 50)
            _ = try opened!.details(rows: Array(rows.prefix(10)), tokens: tokens)
            lexical.append(Clock.ms(since: t))
        }
        print("engine.lexical_p50_ms \(format(percentile(lexical, 50)))")
        print("engine.lexical_p95_ms \(format(percentile(lexical, 95)))")
        opened = nil

        // Hybrid: the library as an app uses it (refresh, BM25, scan, RRF, details and snippets).
        let table = Dictionary(zip(texts, vectors), uniquingKeysWith: { a, _ in a })
        let library = CorpusLibrary(home: corpus.home, embedder: TableEmbedder(table: table))
        var hybrid: [Double] = []
        var hitCount = 0
        for (n, text) in texts.prefix(c.queries).enumerated() {
            let t = Clock.now
            let hits = try await library.search(text, options: SearchOptions(k: 10))
            hybrid.append(Clock.ms(since: t))
            hitCount += hits.count
            if n + 1 == 100 || n + 1 == c.queries {
                let m = Memory.current()
                print("engine.rss_after_\(n + 1)_mb \(format(m.rss))")
                print("engine.peak_rss_after_\(n + 1)_mb \(format(m.peak))")
            }
        }
        print("engine.hybrid_p50_ms \(format(percentile(hybrid, 50)))")
        print("engine.hybrid_p95_ms \(format(percentile(hybrid, 95)))")
        print("engine.hybrid_mean_hits \(format(Double(hitCount) / Double(hybrid.count)))")
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let s = values.sorted()
        return s[min(s.count - 1, Int((Double(s.count - 1) * p / 100).rounded()))]
    }

    static func format(_ v: Double) -> String { String(format: "%.2f", v) }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("corpus-bench engine: \(message)\n".utf8))
        exit(2)
    }
}

/// The benchmark's query embedder: the bench corpus's vectors are synthetic, so each query
/// text maps to the query vector generated with it.
struct TableEmbedder: Embedder {
    let id = SyntheticCorpus.embedderID
    let dimension = 384
    let table: [String: [Float]]

    func embed(_ texts: [String]) throws -> [[Float]] {
        texts.map { table[$0] ?? [Float](repeating: 0, count: dimension) }
    }
}

enum Clock {
    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func ms(since t: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6 }
    static func seconds(since t: UInt64) -> Double { ms(since: t) / 1000 }
}

/// Resident and peak resident set size of this process, in MB (`/proc/self/status` VmRSS, VmHWM).
enum Memory {
    static func current() -> (rss: Double, peak: Double) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Double {
            for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
                let kb = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } ?? 0
                return kb / 1024
            }
            return 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }
}
