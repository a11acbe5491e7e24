import Foundation
import CorpusFormat
import CorpusEngine

/// A deterministic synthetic corpus for `corpus-bench engine`, installed in a home-folder layout:
/// passages drawn from a small Zipf-distributed vocabulary (so BM25 has common and rare words),
/// and clustered random unit vectors (so nearest neighbours are meaningful), plus queries: a few
/// rarer words of a passage, and a vector near that passage's vector.
struct SyntheticCorpus {
    static let remote = "bench"
    static let id = "synthetic"
    static let embedderID = "bench-random-384-v1"
    static let vocabularySize = 5_000
    static let clusters = 512

    let config: EngineBench.Config
    var home: String { "\(config.dir)/home" }
    var versionFolder: String { "\(home)/corpora/\(Self.remote)/\(Self.id)/versions/1" }
    var queryTexts: String { "\(config.dir)/queries.txt" }
    var queryVectors: String { "\(config.dir)/queries.f32" }
    var stamp: String { "\(config.dir)/params" }
    var params: String { "passages=\(config.passages) dim=\(config.dimension) queries=\(config.queries) v1\n" }

    init(config: EngineBench.Config) { self.config = config }

    var isCached: Bool {
        (try? String(contentsOfFile: stamp, encoding: .utf8)) == params && FileIO.exists("\(versionFolder)/corpus.json")
    }

    func loadQueries() throws -> (texts: [String], vectors: [[Float]]) {
        let texts = try String(contentsOfFile: queryTexts, encoding: .utf8).split(separator: "\n").map(String.init)
        let data = try Data(contentsOf: URL(fileURLWithPath: queryVectors))
        let dim = config.dimension
        let vectors: [[Float]] = data.withUnsafeBytes { raw in
            (0..<texts.count).map { q in
                (0..<dim).map { i in Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: (q * dim + i) * 4, as: UInt32.self))) }
            }
        }
        return (texts, vectors)
    }

    func generate() throws {
        FileIO.remove(config.dir)
        try FileIO.createDirectory(versionFolder)
        var rng = BenchRandom(seed: 2026)
        let words = Self.vocabulary(&rng)
        // Zipf(1) over the vocabulary: a handful of very common words, a long tail of rare ones.
        var cumulative: [Double] = []
        var total = 0.0
        for r in 0..<words.count { total += 1 / Double(r + 1); cumulative.append(total) }
        func word() -> Int {
            let u = rng.unit() * total
            var lo = 0, hi = cumulative.count - 1
            while lo < hi { let mid = (lo + hi) / 2; if cumulative[mid] < u { lo = mid + 1 } else { hi = mid } }
            return lo
        }

        let n = config.passages, dim = config.dimension
        let queryRows = (0..<config.queries).map { _ in Int(rng.next() % UInt64(n)) }
        let queryRowSet = Dictionary(queryRows.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        var queryTexts = [String](repeating: "", count: config.queries)
        var queryVectors = [[Float]](repeating: [], count: config.queries)

        // Pack: one transaction, prepared statements.
        var pids: [String] = []
        pids.reserveCapacity(n)
        let perDocument = 20
        let documents = (n + perDocument - 1) / perDocument
        do {
            let db = try Database(path: "\(versionFolder)/pack.sqlite", mode: .create)
            try db.execute("PRAGMA page_size = 4096")
            for sql in PackSchema.statements { try db.execute(sql) }
            try db.transaction {
                let doc = try db.prepare("INSERT INTO documents(id, path, title) VALUES (?1, ?2, ?3)")
                let passage = try db.prepare("INSERT INTO passages(id, pid, document_id, ordinal, title, section, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                var title = ""
                for r in 0..<n {
                    let d = r / perDocument, ordinal = r % perDocument
                    let path = "part-\(d / 1000)/doc-\(d).md"
                    if ordinal == 0 {
                        title = (0..<3).map { _ in words[word()] }.joined(separator: " ").capitalized
                        try doc.bind(1, d + 1).bind(2, path).bind(3, title).run()
                    }
                    let section = ordinal < 10 ? "Part one" : "Part two > \(words[word()])"
                    let ids = (0..<(20 + Int(rng.next() % 21))).map { _ in word() }
                    let text = ids.map { words[$0] }.joined(separator: " ") + "."
                    let pid = PassageID.make(documentPath: path, section: section, ordinal: ordinal, text: text)
                    try passage.bind(1, r).bind(2, pid).bind(3, d + 1).bind(4, ordinal).bind(5, title).bind(6, section).bind(7, text).run()
                    pids.append(pid)
                    if let q = queryRowSet[r] {
                        // Three of the passage's rarer words, as a person would type them.
                        let rare = Array(Set(ids.filter { $0 >= 50 })).sorted().prefix(3)
                        queryTexts[q] = (rare.isEmpty ? Array(ids.prefix(3)) : Array(rare)).map { words[$0] }.joined(separator: " ")
                    }
                }
                let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)")
                typealias K = PackSchema.Meta
                for (k, v) in [(K.format, PackSchema.format), (K.corpusID, Self.id), (K.corpusVersion, "1"),
                               (K.embedderID, Self.embedderID), (K.embedderDimension, String(dim)),
                               (K.documents, String(documents)), (K.passages, String(n))] {
                    try meta.bind(1, k).bind(2, v).run()
                }
            }
            for sql in PackSchema.finishStatements { try db.execute(sql) }
        }

        // Vectors: clustered unit vectors, quantized by VectorFileWriter.
        let centres = (0..<Self.clusters).map { _ in (0..<dim).map { _ in Float(rng.unit() * 2 - 1) } }
        let writer = try VectorFileWriter(path: "\(versionFolder)/vectors.bin", encoding: .int8, dimension: dim, rows: n)
        var v = [Float](repeating: 0, count: dim)
        for r in 0..<n {
            let c = centres[Int(rng.next() % UInt64(Self.clusters))]
            for i in 0..<dim { v[i] = c[i] + Float(rng.unit() * 2 - 1) * 0.9 }
            Self.normalize(&v)
            try writer.append(v)
            if let q = queryRowSet[r] {
                var qv = v
                for i in 0..<dim { qv[i] += Float(rng.unit() * 2 - 1) * 0.05 }
                Self.normalize(&qv)
                queryVectors[q] = qv
            }
        }
        try writer.finish()
        // Queries whose row repeats another's share its vector and text.
        for (q, r) in queryRows.enumerated() where queryVectors[q].isEmpty { queryVectors[q] = queryVectors[queryRowSet[r]!]; queryTexts[q] = queryTexts[queryRowSet[r]!] }

        var members: [String: MemberInfo] = [:]
        for name in [BundleLayout.pack, BundleLayout.vectors] {
            let (digest, size) = try SHA256.digest(fileAt: "\(versionFolder)/\(name)")
            members[name] = MemberInfo(sha256: digest, size: size)
        }
        let manifest = Manifest(id: Self.id, version: try CorpusVersion.parse("1"), title: "Synthetic benchmark corpus",
                                embedder: EmbedderInfo(id: Self.embedderID, dimension: dim, encoding: "int8"),
                                documents: documents, passages: n,
                                content: ContentDigest.make(passageIDs: pids, embedderID: Self.embedderID), members: members)
        try FileIO.writeAtomically(try manifest.canonicalBytes(), to: "\(versionFolder)/corpus.json")
        let corpusDir = "\(home)/corpora/\(Self.remote)/\(Self.id)"
        guard symlink("versions/1", "\(corpusDir)/current") == 0 else { throw FormatError.io(operation: "symlink", path: corpusDir, errno: errno) }

        var raw = Data(capacity: config.queries * dim * 4)
        for qv in queryVectors { for x in qv { withUnsafeBytes(of: x.bitPattern.littleEndian) { raw.append(contentsOf: $0) } } }
        try raw.write(to: URL(fileURLWithPath: self.queryVectors))
        try Data((queryTexts.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: self.queryTexts))
        try Data(params.utf8).write(to: URL(fileURLWithPath: stamp))
    }

    static func normalize(_ v: inout [Float]) {
        let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
        for i in v.indices { v[i] /= n }
    }

    /// Pronounceable distinct words of two to four syllables.
    static func vocabulary(_ rng: inout BenchRandom) -> [String] {
        let consonants = Array("bcdfghklmnprstvz"), vowels = Array("aeiou")
        var seen = Set<String>(), words: [String] = []
        while words.count < vocabularySize {
            let syllables = 2 + Int(rng.next() % 3)
            let w = String((0..<syllables).flatMap { _ in [consonants[Int(rng.next() % 16)], vowels[Int(rng.next() % 5)]] })
            if seen.insert(w).inserted { words.append(w) }
        }
        return words
    }
}
