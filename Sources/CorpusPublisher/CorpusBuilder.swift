import Foundation
import CorpusFormat
import CorpusEngine

/// What to build: a source folder and the corpus's catalog-facing description.
public struct BuildOptions: Sendable {
    public var source: String
    public var id: String
    public var version: CorpusVersion
    public var title: String
    public var description: String
    public var language: String
    public var license: String
    /// True (the default): the pack ships without its FTS5 index, which clients build at install
    /// (`Manifest.index`, format 2): the bundle is made for the download (issue 14; on SQLite's
    /// documentation the bundle without its vectors is half the size). False (`--index bundle`):
    /// the pack holds its index (format 1), for clients that cannot spend the CPU at install.
    public var indexAtInstall = true

    public init(source: String, id: String, version: CorpusVersion, title: String, description: String = "",
                language: String = "en", license: String = "") {
        self.source = source
        self.id = id
        self.version = version
        self.title = title
        self.description = description
        self.language = language
        self.license = license
    }
}

/// Steps of a build, for the CLI to draw; the library itself prints nothing.
public enum BuildProgress: Sendable, Equatable {
    case ingested(documents: Int, skipped: Int)
    case split(passages: Int)
    case packed
    case bundled(bytes: Int64)
}

/// What a build produced.
public struct BuildSummary: Sendable {
    /// The signed manifest, members filled in.
    public var manifest: Manifest
    public var skipped: [SkippedFile]
    /// Documents whose path, title or text holds terminal control characters (stored as they are).
    /// The corpus's own fields are the caller's: `TextWarning.corpusFields`.
    public var warnings: [TextWarning]
    public var output: String
    public var bytes: Int64
    /// For an import (`build(importing:)`): what it kept, changed and dropped.
    public var imported: ImportReport?
    public var documents: Int { manifest.documents }
    public var passages: Int { manifest.passages }
}

/// Builds one signed corpus bundle from a folder of documents.
///
/// The work is a pipeline, because SQLite's FTS5 indexing runs on a single core and is the
/// longest step: a thread of its own owns the pack and indexes rows as they come, while this
/// thread ingests the next group of files on the other cores (splitting each document into
/// passages as it is parsed) and embeds (and quantizes) the passages it handed over, while the
/// pack thread indexes them: indexing is the slower of the two, so embedding fills what would
/// be waits. The digest of the pack's rows is computed from the rows in memory while the pack
/// thread finishes the index and copies the pack out.
/// `BundleWriter` then compresses the pack on every core and writes the signed zip. Everything
/// is still done in one fixed order, so the bundle does not depend on scheduling.
///
/// Holding every passage until the pack is merged costs memory of about the source text; for
/// sources above `inMemoryPackLimit` they are not held (the rows digest is then read from the
/// pack), and the pack is built in a scratch file. A build laid out after a previous version
/// embeds once ingest is done, in the new row order.
///
/// Intermediate files live in a dot-folder beside the output (same volume) and are removed
/// whatever happens; the output appears only complete (BundleWriter renames it into place).
public enum CorpusBuilder {
    public static let embeddingBatch = 256
    /// Files ingested per group: enough for every core to have several files to parse.
    static let filesPerGroup = 8 * Workers.besidePack
    /// Source folders larger than this build their pack in a scratch file instead of memory.
    static let inMemoryPackLimit: Int64 = 1 << 30

    /// - Parameter layout: the rows of the version published before this one (`RowLayout`), which
    ///   this one keeps; nil numbers rows and documents in build order.
    public static func build(_ options: BuildOptions, key: SecretKey, output: String,
                             embedder: any Embedder = HashingEmbedder(), layout: RowLayout? = nil,
                             progress: (BuildProgress) -> Void = { _ in }) throws -> BuildSummary {
        try Identifier.validate(options.id, what: "corpus id")
        let folder = try SourceFolder(options.source)
        let listing = try folder.list()
        let outDir = (output as NSString).deletingLastPathComponent
        let work = try makeWorkDirectory(in: outDir.isEmpty ? "." : outDir, for: (output as NSString).lastPathComponent)
        defer { FileIO.remove(work) }
        let packPath = "\(work)/pack.sqlite", vectorsPath = "\(work)/vectors.bin"

        let sourceBytes = listing.files.reduce(Int64(0)) { $0 + $1.size }
        // Rows laid out after a previous version are known only once every passage is: the
        // pack is then fed after ingest, in row order (FTS5 indexes ascending rowids fastest).
        let large = layout == nil && sourceBytes > inMemoryPackLimit
        let feed = PackFeed(destination: packPath, scratch: large ? "\(work)/pack-scratch.sqlite" : nil, indexed: !options.indexAtInstall)
        let vectors = try VectorFileWriter(path: vectorsPath, encoding: .int8, dimension: embedder.dimension, rows: nil)
        var ingested: Ingested
        do {
            // A first build embeds each group as it is ingested: the pack thread indexes slower
            // than ingest parses, so the embedding fills the ingest thread's waits instead of
            // running after ingest. Rows laid out after a previous version are embedded only once
            // their order is known.
            ingested = try ingest(folder, listing: listing, corpus: options.id, into: feed, holdingRows: layout != nil,
                                  embeddingNow: layout == nil ? (embedder, vectors) : nil, keepingPassages: !large)
        } catch {
            feed.cancel()
            throw error
        }
        progress(.ingested(documents: ingested.documents, skipped: ingested.skipped.count))
        guard !ingested.passageIDs.isEmpty else {
            feed.cancel()
            throw PublisherError.noPassages(source: options.source, skipped: ingested.skipped.count)
        }
        progress(.split(passages: ingested.passageIDs.count))
        do {
            if let layout {
                (ingested.documentRows, ingested.passages) = try feedInLayout(ingested.held, layout: layout, feed: feed)
                ingested.passageIDs = ingested.passages.map(\.pid)
            }
            feed.close(corpusID: options.id, version: options.version.description, embedderID: embedder.id,
                       dimension: embedder.dimension, documents: ingested.documents)
            if let layout {
                let reusable = try ReusableVectors(layout: layout, embedder: embedder)
                try embedInBatches(ingested.passages, with: embedder, into: vectors, reusing: reusable)
            }
            try vectors.finish()
            // While the pack thread still merges and copies the pack: the rows it was given are
            // the rows it holds, so their digest needs no second read of the finished pack; the
            // content digest (a sort of every passage id) is not left for after it either.
            if !large { ingested.rowsDigest = rowsDigest(documents: ingested.documentRows, passages: ingested.passages) }
            ingested.content = ContentDigest.make(passageIDs: ingested.passageIDs, embedderID: embedder.id)
            // The vector file is complete: hashed here, beside the pack thread, not after it.
            ingested.vectorsDigest = try SHA256.hash(fileAt: vectorsPath)
        } catch {
            feed.cancel()
            throw error
        }
        try feed.wait()
        progress(.packed)

        let manifest = try Self.manifest(options, embedder: embedder, documents: ingested.documents, passageIDs: ingested.passageIDs,
                                         content: ingested.content, rowsDigest: ingested.rowsDigest, packPath: packPath)
        let signed = try BundleWriter.write(manifest: manifest, packPath: packPath, vectorsPath: vectorsPath,
                                            vectorsDigest: ingested.vectorsDigest, key: key, to: output)
        let bytes = FileIO.fileSize(output) ?? 0
        progress(.bundled(bytes: bytes))
        return BuildSummary(manifest: signed, skipped: ingested.skipped, warnings: ingested.warnings, output: output, bytes: bytes)
    }

    /// What ingesting a source folder gathered beside the rows it fed to the pack.
    struct Ingested {
        var documents = 0
        /// The document rows as the pack holds them, in ascending id.
        var documentRows: [(id: Int, path: String, title: String)] = []
        var passageIDs: [String] = []
        /// Every passage in row order, unless the source is too large to hold them
        /// (`inMemoryPackLimit`): what the rows digest is computed from, and, in a previous
        /// version's layout, what is embedded once ingest is done.
        var passages: [Passage] = []
        /// Every row, when they are fed to the pack only after ingest (in a previous version's layout).
        var held = PackFeed.Rows()
        var warnings: [TextWarning] = []
        var skipped: [SkippedFile] = []
        /// The pack's rows digest, when every row was still in memory to compute it from.
        var rowsDigest: SHA256Digest?
        /// `ContentDigest` over `passageIDs`, once they are final.
        var content: SHA256Digest?
        /// The SHA-256 and size of the finished `vectors.bin`.
        var vectorsDigest: (digest: [UInt8], size: Int64)?
    }

    /// Ingests the folder's files a group at a time on the workers and splits them into passages;
    /// each group's documents and passages go to the pack as they come, or, with `holdingRows`,
    /// are kept for the caller to lay out. With `embeddingNow` the passages are embedded as
    /// they come, a batch per worker at least (`embeddingStep`), the last ones when ingest ends;
    /// with `keepingPassages` they are also kept (`Ingested.passages`).
    static func ingest(_ folder: SourceFolder, listing: SourceListing, corpus id: String, into feed: PackFeed, holdingRows: Bool,
                       embeddingNow: (embedder: any Embedder, vectors: VectorFileWriter)?, keepingPassages: Bool) throws -> Ingested {
        var out = Ingested()
        // Passages ingested but not yet embedded, so that small groups still make full batches.
        var pending: [Passage] = []
        let groups = try Ingest.folder(folder, files: listing.files, filesPerGroup: filesPerGroup, width: Workers.besidePack,
                                       prepare: { (PassageSplitter.passages(of: $0, document: 0), TextWarning.document($0, corpus: id)) }) { group in
            var rows = PackFeed.Rows()
            for (document, (passages, documentWarnings)) in group {
                out.warnings += documentWarnings
                out.documents += 1
                rows.documents.append((out.documents, document.path, document.title))
                rows.passages += passages.map { var p = $0; p.document = out.documents - 1; return p }
            }
            out.passageIDs += rows.passages.map(\.pid)
            out.documentRows += rows.documents
            if holdingRows {
                out.held.documents += rows.documents
                out.held.passages += rows.passages
                return
            }
            if keepingPassages { out.passages += rows.passages }
            // The rows go to the pack thread first, so it indexes them while they are embedded.
            try feed.put(rows)
            if let now = embeddingNow {
                pending += rows.passages
                if pending.count >= embeddingStep {
                    try embed(pending[...], with: now.embedder, into: now.vectors)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        if let now = embeddingNow, !pending.isEmpty { try embed(pending[...], with: now.embedder, into: now.vectors) }
        out.skipped = Ingest.merged(listing.skipped, groups)
        return out
    }

    /// The manifest of what was built (the bundle writer fills in its members), with the digest of
    /// the pack's rows, signed with it: what a client that patches its pack with a delta checks.
    /// `content` nil: computed from `passageIDs`; `rowsDigest` nil: read from the pack.
    static func manifest(_ options: BuildOptions, embedder: any Embedder, documents: Int, passageIDs: [String],
                         content: SHA256Digest? = nil, rowsDigest: SHA256Digest? = nil, packPath: String) throws -> Manifest {
        var manifest = Manifest(
            id: options.id, version: options.version, title: options.title, description: options.description,
            language: options.language, license: options.license,
            embedder: EmbedderInfo(id: embedder.id, dimension: embedder.dimension, encoding: VectorFileHeader.Encoding.int8.name,
                                   modelDigest: embedder.modelDigest),
            documents: documents, passages: passageIDs.count,
            content: content ?? ContentDigest.make(passageIDs: passageIDs, embedderID: embedder.id))
        if options.indexAtInstall { manifest.index = .install }
        manifest.rowsDigest = try rowsDigest ?? PackDigest.compute(packAt: packPath, embedderID: embedder.id).rows
        return manifest
    }

    /// The rows digest (docs/format.md "Rows digest") of the rows handed to the pack: `documents`
    /// in any order, `passages` in row order with their 0-based document index.
    static func rowsDigest(documents: [(id: Int, path: String, title: String)], passages: [Passage]) -> SHA256Digest {
        let hasher = PackDigest.RowsHasher()
        for d in documents.sorted(by: { $0.id < $1.id }) { hasher.document(id: d.id, path: d.path, title: d.title) }
        for (row, p) in passages.enumerated() {
            hasher.passage(id: row, pid: p.pid, documentID: p.document + 1, ordinal: p.ordinal, title: p.title, section: p.section, text: p.text)
        }
        return hasher.finish()
    }

    /// The passages kept in memory while the pack was written, embedded a few batches per worker
    /// at a time (those `reusing` has a vector for are not embedded again).
    static func embedInBatches(_ passages: [Passage], with embedder: any Embedder, into vectors: VectorFileWriter,
                               reusing: ReusableVectors?) throws {
        for start in stride(from: 0, to: passages.count, by: embeddingStep) {
            try embed(passages[start..<min(start + embeddingStep, passages.count)], with: embedder, into: vectors, reusing: reusing)
        }
    }

    /// Passages embedded at a time: a few batches for every worker.
    static var embeddingStep: Int { embeddingBatch * 4 * Workers.besidePack }

    /// Embeds passages in batches on the cores beside the pack thread, quantizes the vectors
    /// there too, and appends them to `vectors` in passage order.
    /// Passages `reusing` has a vector for (kept from the previous version) are not embedded again.
    static func embed(_ passages: ArraySlice<Passage>, with embedder: any Embedder, into vectors: VectorFileWriter,
                      reusing: ReusableVectors? = nil) throws {
        var reused: [Int: (values: [Int8], scale: Float)] = [:]
        var pending: [Int] = []
        for i in passages.indices {
            if let v = reusing?.vector(of: passages[i].pid) { reused[i] = v } else { pending.append(i) }
        }
        let batches = stride(from: 0, to: pending.count, by: embeddingBatch).map { pending[$0..<min($0 + embeddingBatch, pending.count)] }
        let results = Workers.Slots<Result<[(values: [Int8], scale: Float)], Error>>(count: batches.count)
        Workers.forEach(batches.count, width: Workers.besidePack) { b in
            // What is embedded is what is searched: the section path and the text.
            let texts = batches[b].map { passages[$0].section.isEmpty ? passages[$0].text : "\(passages[$0].section)\n\(passages[$0].text)" }
            results.set(b, Result { try embedder.embed(texts).map(Int8Quantizer.quantize) })
        }
        var computed: [(values: [Int8], scale: Float)] = []
        for b in batches.indices { computed += try results.take(b)!.get() }
        var next = 0
        for i in passages.indices {
            if let v = reused[i] {
                try vectors.append(quantized: v.values, scale: v.scale)
            } else {
                try vectors.append(quantized: computed[next].values, scale: computed[next].scale)
                next += 1
            }
        }
    }

    /// Numbers `rows` as `layout` says, queues them for the pack in row order, and returns the
    /// documents in id order and the passages in row order (the order of `vectors.bin`).
    static func feedInLayout(_ rows: PackFeed.Rows, layout: RowLayout, feed: PackFeed) throws
        -> (documents: [(id: Int, path: String, title: String)], passages: [Passage]) {
        let (documentIDs, passageRows) = layout.assign(paths: rows.documents.map(\.path), pids: rows.passages.map(\.pid))
        var documents = PackFeed.Rows()
        documents.documents = rows.documents.enumerated().map { (documentIDs[$0.offset], $0.element.path, $0.element.title) }
            .sorted { $0.id < $1.id }
        try feed.put(documents)
        var ordered = [Passage?](repeating: nil, count: rows.passages.count)
        for (i, p) in rows.passages.enumerated() {
            var placed = p
            // `document` is the build's 0-based index; the pack takes `document + 1` as the id.
            placed.document = documentIDs[p.document] - 1
            ordered[passageRows[i]] = placed
        }
        let passages = ordered.map { $0! }
        for start in stride(from: 0, to: passages.count, by: 8_192) {
            var chunk = PackFeed.Rows()
            chunk.passages = Array(passages[start..<min(start + 8_192, passages.count)])
            try feed.put(chunk)
        }
        return (documents.documents, passages)
    }

    static func makeWorkDirectory(in dir: String, for name: String) throws -> String {
        try FileIO.createDirectory(dir)
        let path = "\(dir)/.\(name).build-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectory(path, mode: 0o700)
        return path
    }
}
