import CorpusEngine
import CorpusFormat
import CorpusPublisher
import Foundation

/// `corpus-bench eval [--queries FILE] [--root DIR] [--model DIR] [--work DIR] [--verbose]`
///
/// Retrieval quality of each channel and fusion choice on a real collection nobody on the team
/// wrote (docs/engine.md "Fusion, measured"). The query file names the collection (a root folder
/// and the files or folders under it to include) and the questions, each with the documents that
/// answer it. The collection is copied into `--work`, built twice with the real builder (once with
/// all-MiniLM-L6-v2, once with the hashing embedder; both reused while their inputs are unchanged),
/// installed into two home folders, and every question is searched with every method through
/// `CorpusLibrary`, as an app would. Prints hit@5 (a relevant document among the first five hits)
/// and MRR@10 (1 / rank of the first relevant hit in the first ten, else 0), per method; writes
/// the same, with every question's ranks, to `--work/results.json`.
enum EvalBench {
    struct QueryFile: Decodable {
        struct Collection: Decodable {
            var name: String
            var root: String
            var include: [String]
            /// The Debian package that installs `root`.
            var package: String?
        }
        struct Query: Decodable {
            var id: Int
            var question: String
            var relevant: [String]
            /// `paraphrase` (the user's words, not the documents'; the default) or `keyword`
            /// (an identifier, option or term the documents use): reported apart as well.
            var kind: String?
            var kindName: String { kind ?? "paraphrase" }
        }
        var collection: Collection
        var queries: [Query]
    }

    /// hit@5 and MRR@10 of a set of questions, from the rank of each one's first relevant hit.
    struct Score {
        var count: Int, hits: Int, mrr: Double
        var hitAt5: Double { count == 0 ? 0 : Double(hits) / Double(count) }
        init(_ ranks: [Int?]) {
            count = ranks.count
            hits = ranks.filter { ($0 ?? .max) <= 5 }.count
            mrr = count == 0 ? 0 : ranks.compactMap { $0 }.map { 1 / Double($0) }.reduce(0, +) / Double(count)
        }
    }

    /// One way of searching: which build, and the search options.
    struct Method {
        var name: String
        var build: Build
        var options: SearchOptions
    }

    enum Build: String { case minilm, hashing }

    static func run(args: [String]) async throws {
        var options = BenchArguments(args)
        let queriesPath = options.value("--queries") ?? "eval/python-docs-queries.json"
        let work = options.value("--work") ?? ".eval"
        let modelFolder = options.value("--model") ?? "models/all-MiniLM-L6-v2"
        let verbose = options.flag("--verbose")
        guard let data = FileManager.default.contents(atPath: queriesPath) else { throw BenchError("no query file at \(queriesPath)") }
        let spec = try JSONDecoder().decode(QueryFile.self, from: data)
        let root = options.value("--root") ?? spec.collection.root
        guard FileIO.exists(root) else {
            throw BenchError("\(root) is missing: install Debian's \(spec.collection.package ?? "documentation") package (scripts/bootstrap.sh does)")
        }

        var model = try BERTEmbedder(modelDirectory: URL(fileURLWithPath: modelFolder), id: MiniLMEmbedder.identifier)
        model.modelDigest = try EmbedderArtifactWriter.manifest(modelDirectory: modelFolder, id: model.id, dimension: model.dimension).digest

        let source = "\(work)/source"
        let files = try stage(spec.collection, from: root, into: source)
        let minilmHome = try await prepare(source: source, work: work, id: spec.collection.name, build: .minilm, embedder: model)
        let hashingHome = try await prepare(source: source, work: work, id: spec.collection.name, build: .hashing, embedder: HashingEmbedder())
        print("collection=\(spec.collection.name) files=\(files) questions=\(spec.queries.count)")

        let libraries: [Build: CorpusLibrary] = [.minilm: CorpusLibrary(home: minilmHome, embedder: model),
                                                 .hashing: CorpusLibrary(home: hashingHome)]
        var results: [[String: Any]] = []
        let kinds = Array(Set(spec.queries.map(\.kindName))).sorted()
        print("")
        print("method".padding(toLength: 58, withPad: " ", startingAt: 0) + "hit@5   MRR@10  ms/query"
              + (kinds.count > 1 ? kinds.map { kind in "  \(kind) (\(spec.queries.filter { $0.kindName == kind }.count)) hit@5 MRR@10" }.joined() : ""))
        for method in methods() {
            var perQuery: [[String: Any]] = []
            var ranks: [(kind: String, rank: Int?)] = []
            let start = Date()
            for q in spec.queries {
                var options = method.options
                options.k = 10
                let found = try await libraries[method.build]!.search(q.question, options: options)
                let rank = found.firstIndex { q.relevant.contains($0.document) }.map { $0 + 1 }
                ranks.append((q.kindName, rank))
                perQuery.append(["id": q.id, "kind": q.kindName, "rank": rank as Any? ?? NSNull(), "top": found.first?.document ?? ""])
                if verbose { print("  [\(method.name)] #\(q.id) rank=\(rank.map(String.init) ?? "-") top=\(found.first?.document ?? "") \(q.question)") }
            }
            let ms = Date().timeIntervalSince(start) * 1000 / Double(spec.queries.count)
            let all = Score(ranks.map(\.rank))
            var line = method.name.padding(toLength: 58, withPad: " ", startingAt: 0) + String(format: "%.3f   %.3f   %.1f", all.hitAt5, all.mrr, ms)
            var byKind: [String: Any] = [:]
            if kinds.count > 1 {
                for kind in kinds {
                    let k = Score(ranks.filter { $0.kind == kind }.map(\.rank))
                    line += "  \(kind) " + String(format: "%d/%d %.3f", k.hits, k.count, k.mrr)
                    byKind[kind] = ["hit_at_5": k.hitAt5, "hits_at_5": k.hits, "mrr_at_10": k.mrr]
                }
            }
            print(line)
            results.append(["method": method.name, "hit_at_5": all.hitAt5, "hits_at_5": all.hits, "mrr_at_10": all.mrr, "ms_per_query": ms,
                            "by_kind": byKind, "queries": perQuery])
        }
        let out = try JSONSerialization.data(withJSONObject: ["collection": spec.collection.name, "questions": spec.queries.count, "methods": results],
                                             options: [.prettyPrinted, .sortedKeys])
        try out.write(to: URL(fileURLWithPath: "\(work)/results.json"))
        print("\nwrote \(work)/results.json")
    }

    /// The methods compared: each channel alone, plain RRF, weighted RRF, other depths and k, and
    /// score-based (convex) fusion at several weights.
    static func methods() -> [Method] {
        func o(_ change: (inout SearchOptions) -> Void) -> SearchOptions {
            var options = SearchOptions()
            change(&options)
            return options
        }
        return [
            Method(name: "BM25 alone", build: .minilm, options: o { $0.lexicalOnly = true }),
            Method(name: "dense alone (MiniLM)", build: .minilm, options: o { $0.lexicalDepth = 0 }),
            Method(name: "hybrid, default (convex 0.8 dense + 0.2 BM25, partial 0.5)", build: .minilm, options: o { _ in }),
            Method(name: "hybrid RRF k=60, partial-match BM25 0.5 (default before)", build: .minilm, options: o { $0.fusion = .reciprocalRank }),
            Method(name: "hybrid RRF k=60, depth 50/50 (plain, before)", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1 }),
            Method(name: "hybrid RRF k=60, weights bm25 1 : dense 1.5", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.channelWeights = [.vector: 1.5] }),
            Method(name: "hybrid RRF k=60, weights bm25 1 : dense 2", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.channelWeights = [.vector: 2] }),
            Method(name: "hybrid RRF k=60, weights bm25 1 : dense 3", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.channelWeights = [.vector: 3] }),
            Method(name: "hybrid RRF k=60, weights bm25 2 : dense 1", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.channelWeights = [.lexical: 2] }),
            Method(name: "hybrid RRF k=60, depth bm25 20 / dense 50", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.lexicalDepth = 20 }),
            Method(name: "hybrid RRF k=60, depth bm25 10 / dense 50", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.lexicalDepth = 10 }),
            Method(name: "hybrid RRF k=60, depth bm25 50 / dense 20", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.vectorDepth = 20 }),
            Method(name: "hybrid RRF k=60, depth 10/10", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.perChannelDepth = 10 }),
            Method(name: "hybrid RRF k=60, depth 100/100", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.perChannelDepth = 100 }),
            Method(name: "hybrid RRF k=10, depth 50/50", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.rrfK = 10 }),
            Method(name: "hybrid RRF k=10, weights bm25 1 : dense 2", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 1; $0.rrfK = 10; $0.channelWeights = [.vector: 2] }),
            Method(name: "hybrid, partial-match BM25 weight 0.25", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.25 }),
            Method(name: "hybrid, partial-match BM25 weight 0", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0 }),
            Method(name: "hybrid, partial 0.5, weights 1 : dense 1.5", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.5; $0.channelWeights = [.vector: 1.5] }),
            Method(name: "hybrid, partial 0.25, weights 1 : dense 1.5", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.25; $0.channelWeights = [.vector: 1.5] }),
            Method(name: "hybrid, partial-match BM25 weight 0.75", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.75 }),
            Method(name: "hybrid, partial-match BM25 weight 0.6", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.6 }),
            Method(name: "hybrid, partial-match BM25 weight 0.4", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.4 }),
            Method(name: "hybrid, partial 0.5, weights 1 : dense 1.25", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.5; $0.channelWeights = [.vector: 1.25] }),
            Method(name: "hybrid, partial 0.6, weights 1 : dense 1.25", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.6; $0.channelWeights = [.vector: 1.25] }),
            Method(name: "hybrid, partial 0.4, weights 1 : dense 1.25", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.4; $0.channelWeights = [.vector: 1.25] }),
            Method(name: "hybrid, partial 0.5, RRF k=30", build: .minilm, options: o { $0.fusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.5; $0.rrfK = 30 }),
            Method(name: "convex 0.5 dense + 0.5 BM25, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.5) }),
            Method(name: "convex 0.6 dense + 0.4 BM25, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.6) }),
            Method(name: "convex 0.7 dense + 0.3 BM25, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.7) }),
            Method(name: "convex 0.9 dense + 0.1 BM25, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.9) }),
            Method(name: "convex 0.7, partial 1", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.7); $0.relaxedLexicalWeight = 1 }),
            Method(name: "convex 0.7, partial 0.25", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.7); $0.relaxedLexicalWeight = 0.25 }),
            Method(name: "convex 0.8, partial 1", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.8); $0.relaxedLexicalWeight = 1 }),
            Method(name: "convex 0.8, partial 0.25", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.8); $0.relaxedLexicalWeight = 0.25 }),
            Method(name: "convex 0.75, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.75) }),
            Method(name: "convex 0.85, partial 0.5", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.85) }),
            Method(name: "convex 0.8, depth 20/50", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.8); $0.lexicalDepth = 20 }),
            Method(name: "convex 0.8, depth 100/100", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.8); $0.perChannelDepth = 100 }),
            Method(name: "convex 0.7, depth 20/50", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.7); $0.lexicalDepth = 20 }),
            Method(name: "convex 0.7, depth 100/100", build: .minilm, options: o { $0.fusion = .convex(vectorWeight: 0.7); $0.perChannelDepth = 100 }),
            // The model-free embedder: BM25 beside hashing vectors (issue 27: fusion never below its better channel).
            Method(name: "hashing build: BM25 alone", build: .hashing, options: o { $0.lexicalOnly = true }),
            Method(name: "hashing vectors alone (hash-uni-bi-384-v1)", build: .hashing, options: o { $0.lexicalDepth = 0 }),
            Method(name: "hashing: default (lexical first, vectors break ties)", build: .hashing, options: o { _ in }),
            Method(name: "hashing: RRF k=60, partial 0.5 (default before)", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank }),
            Method(name: "hashing: RRF k=60, partial 1 (plain)", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.relaxedLexicalWeight = 1 }),
            Method(name: "hashing: RRF k=60, partial 0.25", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.relaxedLexicalWeight = 0.25 }),
            Method(name: "hashing: RRF k=60, weights bm25 2 : vec 1", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.channelWeights = [.lexical: 2] }),
            Method(name: "hashing: RRF k=60, weights bm25 3 : vec 1", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.channelWeights = [.lexical: 3] }),
            Method(name: "hashing: RRF k=60, weights bm25 5 : vec 1", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.channelWeights = [.lexical: 5] }),
            Method(name: "hashing: RRF k=60, vector depth 10", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.vectorDepth = 10 }),
            Method(name: "hashing: RRF k=10, weights bm25 2 : vec 1", build: .hashing, options: o { $0.modelFreeFusion = .reciprocalRank; $0.rrfK = 10; $0.channelWeights = [.lexical: 2] }),
            Method(name: "hashing: convex 0.8 vec + 0.2 BM25", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.8) }),
            Method(name: "hashing: convex 0.5 vec + 0.5 BM25", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.5) }),
            Method(name: "hashing: convex 0.3 vec + 0.7 BM25", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.3) }),
            Method(name: "hashing: convex 0.2 vec + 0.8 BM25", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.2) }),
            Method(name: "hashing: convex 0.1 vec + 0.9 BM25", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.1) }),
            Method(name: "hashing: convex 0.2, partial 1", build: .hashing, options: o { $0.modelFreeFusion = .convex(vectorWeight: 0.2); $0.relaxedLexicalWeight = 1 }),
        ]
    }

    /// Copies the included files (a path ending in `/` is a whole folder, recursively; only
    /// `.html` files) into `into`, keeping their relative paths. Returns how many.
    static func stage(_ c: QueryFile.Collection, from root: String, into: String) throws -> Int {
        FileIO.remove(into)
        var count = 0
        for item in c.include {
            var paths: [String] = []
            if item.hasSuffix("/") {
                let names = try FileManager.default.subpathsOfDirectory(atPath: "\(root)/\(item)").sorted()
                paths = names.filter { $0.hasSuffix(".html") }.map { item + $0 }
            } else {
                paths = [item]
            }
            for rel in paths {
                let dest = "\(into)/\(rel)"
                try FileIO.createDirectory((dest as NSString).deletingLastPathComponent)
                try FileManager.default.copyItem(atPath: "\(root)/\(rel)", toPath: dest)
                count += 1
            }
        }
        return count
    }

    /// Builds the collection with `embedder` (unless an earlier build of the same inputs is there)
    /// and installs it as corpus `id` in `work/home-<build>`. Returns the home folder.
    static func prepare(source: String, work: String, id: String, build: Build, embedder: any Embedder) async throws -> String {
        let bundle = "\(work)/\(id)-\(build.rawValue).corpus.zip"
        let stamp = bundle + ".inputs"
        let keyPath = "\(work)/eval.key"
        let key: SecretKey
        if FileIO.exists(keyPath) {
            key = try SecretKey(contentsOf: keyPath)
        } else {
            key = try SecretKey.generate()
            try FileIO.writeAtomically(Data(key.fileText.utf8), to: keyPath, mode: 0o600)
        }
        let inputs = try inputsDigest(source: source, embedder: embedder)
        if FileManager.default.contents(atPath: stamp).map({ String(decoding: $0, as: UTF8.self) }) != inputs || !FileIO.exists(bundle) {
            let start = Date()
            let summary = try CorpusBuilder.build(BuildOptions(source: source, id: id, version: CorpusVersion("1")!, title: "\(id) (eval subset)"),
                                                  key: key, output: bundle, embedder: embedder)
            let s = Date().timeIntervalSince(start)
            print("built \(build.rawValue): \(summary.documents) documents, \(summary.passages) passages in \(String(format: "%.1f", s)) s (\(String(format: "%.1f", Double(summary.passages) / s)) passages/s)")
            try FileIO.writeAtomically(Data(inputs.utf8), to: stamp)
        } else {
            print("reusing \(bundle) (inputs unchanged)")
        }
        let home = "\(work)/home-\(build.rawValue)"
        FileIO.remove(home)
        let corpusDir = "\(home)/corpora/local/\(id)"
        try FileIO.createDirectory("\(corpusDir)/versions")
        let version = "\(corpusDir)/versions/1"
        try BundleReader(path: bundle).extract(to: version, trustedKeys: [key.publicKey])
        // The default bundle ships without its full-text index: build it as `corpus install` does
        // (without it, BM25 finds nothing and every hybrid is its vector channel alone).
        guard let manifestBytes = FileManager.default.contents(atPath: "\(version)/\(BundleLayout.manifest)") else {
            throw BenchError("no manifest in \(version)")
        }
        if try Manifest.decode(manifestBytes).index == .install { try PackIndexer.build(packAt: "\(version)/\(BundleLayout.pack)") }
        guard symlink("versions/1", "\(corpusDir)/current") == 0 else { throw BenchError("symlink in \(corpusDir) failed") }
        return home
    }

    /// The digest of what a build depends on: every staged file and the embedder (with its model digest).
    static func inputsDigest(source: String, embedder: any Embedder) throws -> String {
        let d = Digest(.sha256)
        d.update(Array("eval-v1\0\(embedder.id)\0\(embedder.modelDigest?.hex ?? "")\0".utf8))
        for rel in try FileManager.default.subpathsOfDirectory(atPath: source).sorted() where rel.hasSuffix(".html") {
            d.update(Array("\(rel)\0\(Hex.encode(try SHA256.hash(fileAt: "\(source)/\(rel)").digest))\0".utf8))
        }
        return Hex.encode(d.finalize())
    }
}

extension EvalBench {
    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
