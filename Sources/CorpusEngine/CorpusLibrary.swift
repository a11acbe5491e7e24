import Foundation
import CorpusFormat
import Synchronization

/// Every corpus installed in a home folder, searched as one: the library apps link to.
///
/// Each search re-reads `corpora/<remote>/<id>/current` and reuses an open corpus only while
/// its link still resolves to the same version folder (same path and inode); it opens corpora
/// that appeared and forgets removed ones. So an install, update or removal by another process
/// shows up at the next search without a restart, while a search already running keeps the
/// corpora it resolved: their open file descriptor and mapping keep the old files readable.
public final class CorpusLibrary: Sendable {
    public let home: String
    /// Where the corpora are (docs/layout.md).
    public let layout: HomeLayout
    /// The query embedder for corpora built without a model artifact (the hashing embedder).
    public let embedder: any Embedder
    /// Finds the query embedder of each corpus: `embedder`, or the installed model its manifest names.
    public let embedders: EmbedderResolver
    private let cache = Mutex<[String: (identity: Identity, corpus: InstalledCorpus)]>([:])

    public init(home: String, embedder: any Embedder = HashingEmbedder()) {
        layout = HomeLayout(root: home)
        self.home = layout.root
        self.embedder = embedder
        self.embedders = EmbedderResolver(home: layout.root, defaultEmbedder: embedder)
    }

    /// One installed corpus as found on disk: where `current` points right now.
    struct Located: Hashable {
        var remote: String
        var id: String
        var folder: String
        var device: UInt64
        var inode: UInt64
        var name: String { "\(remote)/\(id)" }
    }

    /// The installed corpora as `HomeLayout` finds them (`corpora/*/*/current`, docs/layout.md),
    /// with the folder each `current` resolves to right now. A missing or dangling `current`, a
    /// link that climbs out of its corpus folder, or a name that is not an id means "not installed".
    func locate() -> [Located] {
        layout.installedCorpora().compactMap { remote, id in
            guard let folder = layout.currentVersionDirectory(remote: remote, id: id) else { return nil }
            var st = stat()
            guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
            return Located(remote: remote, id: id, folder: folder, device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
        }
    }

    /// The installed corpora, opened (or reused), in `remote/id` order; with failures per corpus.
    /// With `names` (`id` or `remote/id`), only the corpora they select are opened and returned:
    /// a search naming one corpus does not pay for opening the others. Open corpora that were not
    /// selected stay cached while their version folder is unchanged, so a long-lived library (the
    /// search server) does not reopen them at the next search that wants them.
    func refresh(selecting names: [String] = []) -> [(name: String, result: Result<InstalledCorpus, any Error>)] {
        let located = locate()
        return cache.withLock { cache in
            var next: [String: (identity: Identity, corpus: InstalledCorpus)] = [:]
            var out: [(String, Result<InstalledCorpus, any Error>)] = []
            for loc in located {
                let selected = Self.selects(names, loc.name)
                if let open = cache[loc.name], open.identity == Identity(loc) {
                    next[loc.name] = open
                    if selected { out.append((loc.name, .success(open.corpus))) }
                    continue
                }
                guard selected else { continue }
                do {
                    let corpus = try InstalledCorpus(folder: loc.folder, remote: loc.remote, expectedID: loc.id)
                    next[loc.name] = (Identity(loc), corpus)
                    out.append((loc.name, .success(corpus)))
                } catch {
                    out.append((loc.name, .failure(error)))
                }
            }
            // Dropping a corpus here only releases the cache's reference: searches in flight keep theirs.
            cache = next
            return out
        }
    }

    /// Whether `names` (empty: all) selects the corpus `remote/id` named `name`, by `id` or `remote/id`.
    static func selects(_ names: [String], _ name: String) -> Bool {
        names.isEmpty || names.contains { name == $0 || name.hasSuffix("/" + $0) }
    }

    /// The corpora (`remote/id`) this library holds open right now (tests: what a search opened).
    var openNames: [String] { cache.withLock { $0.keys.sorted() } }

    /// The installed corpora (`remote/id`, sorted) as the layout shows them right now, none opened:
    /// a directory listing and a `stat` per corpus. What to ask when only "is anything installed?"
    /// matters (the CLI's choice between local and remote search).
    public func installedNames() -> [String] {
        locate().map(\.name)
    }

    /// The corpora installed right now, opened; throws the first corpus that cannot be opened.
    public func installed() throws -> [InstalledCorpus] {
        try refresh().map { try $0.result.get() }
    }

    /// Searches the selected installed corpora with both channels and fuses the results.
    ///
    /// Per corpus, the lexical channel (BM25) and the vector channel each rank their best
    /// `perChannelDepth` passages; all those lists, from every corpus, are fused into one ranking
    /// (`fuse`, docs/engine.md "Fusion"), and the best `k` are returned.
    /// Each corpus's query embedder is the one its manifest names (`EmbedderResolver`); the query
    /// is embedded once per distinct embedder. Throws `EngineError.embedderMismatch`,
    /// `.embedderNotInstalled` or `.embedderModelMismatch` for a corpus whose embedder is not
    /// available unless that corpus (or the whole search) is lexical-only, and the open error of
    /// any selected corpus that cannot be opened.
    public func search(_ query: String, options: SearchOptions = SearchOptions()) async throws -> [Hit] {
        try await searchReport(query, options: options).hits
    }

    /// `search`, saying which selected corpora were skipped because they could not be opened or
    /// read (a damaged pack, a missing file): one damaged corpus does not stop the others. Throws
    /// the first corpus's error when every selected corpus was skipped.
    public func searchReport(_ query: String, options: SearchOptions = SearchOptions()) async throws -> SearchReport {
        try Task.checkCancellation()
        var (corpora, skipped) = try select(options.corpora)
        let selectedCount = corpora.count + skipped.count
        // Stop words ("the", "is", …) match nearly every passage and only add noise to both
        // channels; they are dropped unless the query has nothing else.
        let tokens = FTSQuery.contentTokens(FTSQuery.tokens(query))
        let vectors = try queryVectors(query, tokens: tokens, corpora: corpora, options: options)
        let lists = try rankedLists(tokens: tokens, vectors: vectors, corpora: corpora, options: options, skipped: &skipped)
        let fused = Self.fuse(lists, options: options, fromModel: vectors.fromModel).prefix(max(0, options.k))
        let hits = try self.hits(Array(fused), corpora: corpora, tokens: tokens)
        // Every selected corpus skipped: nothing was searched, and saying "no results" would hide it.
        if let first = skipped.first, Set(skipped.map(\.name)).count == selectedCount { throw first.error }
        return SearchReport(hits: hits, skipped: skipped)
    }

    /// The query embedded once per distinct embedder of the corpora searched with vectors.
    struct QueryVectors {
        /// Per corpus (by position), the key of its embedder; nil for a lexical-only one.
        var keyOfCorpus: [String?] = []
        /// Per embedder key, the query's vector; missing when the query has no direction (no words).
        var byKey: [String: [Float]] = [:]
        /// Whether a vector list comes from a model (not the hashing embedder): only a model's
        /// cosines are worth fusing by score (docs/engine.md "Fusion, measured").
        var fromModel = false
    }

    private func queryVectors(_ query: String, tokens: [String], corpora: [InstalledCorpus],
                              options: SearchOptions) throws -> QueryVectors {
        var out = QueryVectors()
        var queryEmbedders: [String: any Embedder] = [:]
        for corpus in corpora {
            let lexicalOnly = options.lexicalOnly || options.lexicalOnlyCorpora.contains(corpus.id)
                || options.lexicalOnlyCorpora.contains(corpus.name)
            guard !lexicalOnly else {
                out.keyOfCorpus.append(nil)
                continue
            }
            let info = corpus.manifest.embedder
            let key = EmbedderResolver.key(info)
            if queryEmbedders[key] == nil { queryEmbedders[key] = try embedders.embedder(for: info, corpus: corpus.name) }
            out.keyOfCorpus.append(key)
        }
        for (key, e) in queryEmbedders.sorted(by: { $0.key < $1.key }) {
            try Task.checkCancellation()
            // The lexical hashing embedder sees the same content words as BM25; a neural
            // embedder reads the whole sentence, stop words included.
            let text = e.id == HashingEmbedder.identifier ? tokens.joined(separator: " ") : query
            let v = try e.embedQueries([text]).first ?? []
            // An all-zero embedding (no words) has no direction to search in.
            if v.count == e.dimension, v.contains(where: { $0 != 0 }) {
                out.byKey[key] = v
                if e.id != HashingEmbedder.identifier { out.fromModel = true }
            }
        }
        return out
    }

    /// The ranked lists fusion takes: one lexical list across corpora, one vector list per embedder.
    ///
    /// Lexical: BM25 values of corpora with different statistics are not comparable, so the
    /// lexical list orders by ladder stage, then by rank within each corpus (`lexicalList`).
    /// Vector: corpora embedded with one embedder share one list, ranked by score: cosines from
    /// one model and one query vector compare across corpora, and a sentence encoder gives every
    /// passage of every corpus some positive score, so per-corpus lists would hand the nearest
    /// passage of an unrelated corpus the same vector rank 1 as the right one. Equal scores
    /// share a rank. A pack that opened but cannot be read (corrupt pages) is added to `skipped`.
    private func rankedLists(tokens: [String], vectors: QueryVectors, corpora: [InstalledCorpus], options: SearchOptions,
                             skipped: inout [SkippedCorpus]) throws -> [ReciprocalRankFusion.RankedList<PassageKey>] {
        var nearestByEmbedder: [String: [(key: PassageKey, score: Float)]] = [:]
        var lexicalHits: [LexicalHit] = []
        for (c, corpus) in corpora.enumerated() {
            try Task.checkCancellation()
            // A time window keeps only its passages; each channel then looks deeper so that its
            // best `depth` inside the window are found (vectors: every row).
            var window: Set<Int32>?
            let lexical: [(row: Int32, stage: Int, bm25: Double)]
            do {
                if let w = options.timeWindow { window = try corpus.rows(in: w) }
                if window?.isEmpty == true { continue }
                lexical = try lexicalRows(corpus, tokens: tokens, window: window, options: options)
            } catch {
                skipped.append(SkippedCorpus(name: corpus.name, error: error))
                continue
            }
            // BM25 compares within a corpus only: each corpus's scores are normalised on their own.
            for (i, (hit, score)) in zip(lexical, ScoreFusion.normalised(lexical.map(\.bm25))).enumerated() {
                lexicalHits.append(LexicalHit(key: PassageKey(corpus: c, row: hit.row), stage: hit.stage, rank: i + 1, score: score))
            }
            if let key = vectors.keyOfCorpus[c], let queryVector = vectors.byKey[key], (options.vectorDepth ?? 1) > 0 {
                let depth = options.vectorDepth ?? options.perChannelDepth
                var nearest = corpus.vectors.nearest(to: queryVector, limit: window == nil ? depth : corpus.vectors.rows)
                if let window { nearest = Array(nearest.filter { window.contains($0.row) }.prefix(depth)) }
                nearestByEmbedder[key, default: []] += nearest.map { (key: PassageKey(corpus: c, row: $0.row), score: $0.score) }
            }
        }
        var lists: [ReciprocalRankFusion.RankedList<PassageKey>] = []
        if !lexicalHits.isEmpty { lists.append(Self.lexicalList(lexicalHits, relaxedWeight: options.relaxedLexicalWeight)) }
        for (_, scored) in nearestByEmbedder.sorted(by: { $0.key < $1.key }) {
            let ranked = scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.key < $1.key }
            lists.append(.init(channel: .vector, scored: Array(ranked.prefix(options.vectorDepth ?? options.perChannelDepth))))
        }
        return lists
    }

    /// A corpus's best BM25 rows with their ladder stage, at most the lexical depth; inside a time
    /// window (`window`, its rows) from a deeper search (20 times the depth, at least 1,000).
    private func lexicalRows(_ corpus: InstalledCorpus, tokens: [String], window: Set<Int32>?,
                             options: SearchOptions) throws -> [(row: Int32, stage: Int, bm25: Double)] {
        let depth = options.lexicalDepth ?? options.perChannelDepth
        guard depth > 0 else { return [] }
        let rows = try corpus.lexicalSearchStaged(tokens: tokens, limit: window == nil ? depth : max(depth * 20, 1000))
        guard let window else { return rows }
        return Array(rows.filter { window.contains($0.row) }.prefix(depth))
    }

    /// A lexical hit: where it is, its ladder stage, its BM25 rank within its corpus and its BM25
    /// min-max normalised within its corpus (for `ScoreFusion`).
    struct LexicalHit {
        var key: PassageKey
        var stage: Int
        var rank: Int
        var score: Double
    }

    /// The lists fused as `options.fusion` says when a model's vector list is among them
    /// (`fromModel`), else as `options.modelFreeFusion` says: the hashing embedder's cosines are
    /// lexical too, and neither rank nor score fusion with them kept what BM25 alone finds
    /// (docs/engine.md "Fusion, measured"). Lexical lists alone are rank-fused.
    static func fuse(_ lists: [ReciprocalRankFusion.RankedList<PassageKey>], options: SearchOptions,
                     fromModel: Bool) -> [ReciprocalRankFusion.Fused<PassageKey>] {
        let fusion = fromModel ? options.fusion : options.modelFreeFusion
        guard lists.contains(where: { $0.channel == .vector }) else {
            return ReciprocalRankFusion.fuse(lists, k: options.rrfK, weights: options.channelWeights)
        }
        let vectorWeight: Double
        switch fusion {
        case .reciprocalRank: return ReciprocalRankFusion.fuse(lists, k: options.rrfK, weights: options.channelWeights)
        case .lexicalFirst: return LexicalFirstFusion.fuse(lists, k: options.rrfK)
        case let .convex(weight): vectorWeight = weight
        }
        var weights = options.channelWeights
        weights[.vector] = vectorWeight * (weights[.vector] ?? 1)
        weights[.lexical] = (1 - vectorWeight) * (weights[.lexical] ?? 1)
        // Cosines from one embedder compare across corpora: one normalisation per vector list.
        let normalised = lists.map { list in
            var list = list
            if list.channel == .vector { list.scores = ScoreFusion.normalised(list.scores ?? list.keys.map { _ in 1 }) }
            return list
        }
        return ScoreFusion.fuse(normalised, weights: weights)
    }

    /// One lexical list: ordered by ladder stage first (a passage holding every query word beats
    /// one holding a single word, whatever its corpus), then by its BM25 rank within its corpus;
    /// equal (stage, rank) pairs share a rank, so corpora of equal standing interleave. The list
    /// is cut at the depth times the number of corpora, so every corpus's own top N can take part.
    /// A hit below the first stage (holding only part of the query) counts `relaxedWeight` of a
    /// full one in fusion (docs/engine.md, "Fusion, measured").
    static func lexicalList(_ hits: [LexicalHit], relaxedWeight: Double) -> ReciprocalRankFusion.RankedList<PassageKey> {
        let sorted = hits.sorted { ($0.stage, $0.rank, $0.key) < ($1.stage, $1.rank, $1.key) }
        var ranks: [Int] = []
        var dense = 0
        var last: (Int, Int)?
        for h in sorted {
            if last == nil || last! != (h.stage, h.rank) { dense += 1; last = (h.stage, h.rank) }
            ranks.append(dense)
        }
        return .init(channel: .lexical, keys: sorted.map(\.key), ranks: ranks,
                     scales: sorted.map { $0.stage == 0 ? 1 : relaxedWeight }, scores: sorted.map(\.score))
    }

    /// The fused passages with their text, document and section, read from each corpus once.
    private func hits(_ fused: [ReciprocalRankFusion.Fused<PassageKey>], corpora: [InstalledCorpus], tokens: [String]) throws -> [Hit] {
        var details: [Int: [Int32: InstalledCorpus.PassageDetail]] = [:]
        for c in Set(fused.map(\.key.corpus)) {
            details[c] = try corpora[c].details(rows: fused.filter { $0.key.corpus == c }.map(\.key.row), tokens: tokens)
        }
        return fused.compactMap { f -> Hit? in
            let corpus = corpora[f.key.corpus]
            guard let d = details[f.key.corpus]?[f.key.row] else { return nil }
            return Hit(corpus: corpus.id, remote: corpus.remote, version: corpus.version.description, passageID: d.passageID,
                       document: d.documentPath, documentTitle: d.documentTitle, section: d.section, text: d.text,
                       snippet: d.snippet, score: f.score, lexicalRank: f.ranks[.lexical], vectorRank: f.ranks[.vector])
        }
    }

    /// The corpora a search covers: all installed, or those `names` selects (`id` or `remote/id`),
    /// opened, and the selected ones that could not be opened.
    func select(_ names: [String]) throws -> (open: [InstalledCorpus], skipped: [SkippedCorpus]) {
        if !names.isEmpty {
            let installed = installedNames()
            for name in names where !installed.contains(where: { Self.selects([name], $0) }) {
                throw EngineError.corpusNotFound(name)
            }
        }
        // Installed (remote/id) order, not request order: fusion ties break by it.
        let chosen = refresh(selecting: names)
        var open: [InstalledCorpus] = []
        var skipped: [SkippedCorpus] = []
        for c in chosen {
            switch c.result {
            case let .success(corpus): open.append(corpus)
            case let .failure(error): skipped.append(SkippedCorpus(name: c.name, error: error))
            }
        }
        return (open, skipped)
    }
}

/// What a search found, and the corpora it could not search.
public struct SearchReport: Sendable {
    public var hits: [Hit]
    public var skipped: [SkippedCorpus]

    public init(hits: [Hit], skipped: [SkippedCorpus]) {
        self.hits = hits
        self.skipped = skipped
    }
}

/// A selected corpus a search skipped (`remote/id`), with why: it does not open or read.
public struct SkippedCorpus: Sendable {
    public var name: String
    public var error: any Error
}

/// A passage of one of the corpora in a search: the corpus's index in that search and its row.
/// Ordered by corpus, then row, which is the fusion's last tie-break.
struct PassageKey: Hashable, Comparable, Sendable {
    var corpus: Int
    var row: Int32

    static func < (a: PassageKey, b: PassageKey) -> Bool { (a.corpus, a.row) < (b.corpus, b.row) }
}

/// Which version folder an open corpus came from: a reinstalled folder at the same path is a new inode.
struct Identity: Hashable, Sendable {
    var folder: String
    var device: UInt64
    var inode: UInt64

    init(_ l: CorpusLibrary.Located) {
        folder = l.folder
        device = l.device
        inode = l.inode
    }
}
