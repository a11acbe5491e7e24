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
/// passages as it is parsed). The passages are then embedded (and their vectors quantized) on
/// the other cores while the pack thread finishes the index and copies the pack out.
/// `BundleWriter` then compresses the pack on every core and writes the signed zip. Everything
/// is still done in one fixed order, so the bundle does not depend on scheduling.
///
/// Holding every passage until the pack is merged costs memory of about the source text; for
/// sources above `inMemoryPackLimit` each group is embedded as it comes instead, and the pack
/// is built in a scratch file.
///
/// Intermediate files live in a dot-folder beside the output (same volume) and are removed
/// whatever happens; the output appears only complete (BundleWriter renames it into place).
public enum CorpusBuilder {
    public static let embeddingBatch = 256
    /// Files ingested per group: enough for every core to have several files to parse.
    static let filesPerGroup = 8 * Workers.besidePack
    /// Source folders larger than this build their pack in a scratch file instead of memory.
    static let inMemoryPackLimit: Int64 = 1 << 30

    public static func build(_ options: BuildOptions, key: SecretKey, output: String,
                             embedder: any Embedder = HashingEmbedder(),
                             progress: (BuildProgress) -> Void = { _ in }) throws -> BuildSummary {
        try Identifier.validate(options.id, what: "corpus id")
        let folder = try SourceFolder(options.source)
        let listing = try folder.list()
        let outDir = (output as NSString).deletingLastPathComponent
        let work = try makeWorkDirectory(in: outDir.isEmpty ? "." : outDir, for: (output as NSString).lastPathComponent)
        defer { FileIO.remove(work) }
        let packPath = "\(work)/pack.sqlite", vectorsPath = "\(work)/vectors.bin"

        let sourceBytes = listing.files.reduce(Int64(0)) { $0 + $1.size }
        let large = sourceBytes > inMemoryPackLimit
        let feed = PackFeed(destination: packPath, scratch: large ? "\(work)/pack-scratch.sqlite" : nil)
        let vectors = try VectorFileWriter(path: vectorsPath, encoding: .int8, dimension: embedder.dimension, rows: nil)
        var documents = 0
        var pids: [String] = []
        var unembedded: [Passage] = []
        var warnings: [TextWarning] = []
        let skipped: [SkippedFile]
        do {
            skipped = Ingest.merged(listing.skipped, try Ingest.folder(folder, files: listing.files, filesPerGroup: filesPerGroup, width: Workers.besidePack,
                                        prepare: { [id = options.id] in
                                            (PassageSplitter.passages(of: $0, document: 0), TextWarning.document($0, corpus: id))
                                        }) { group in
                var rows = PackFeed.Rows()
                for (document, (passages, documentWarnings)) in group {
                    warnings += documentWarnings
                    documents += 1
                    rows.documents.append((documents, document.path, document.title))
                    rows.passages += passages.map { var p = $0; p.document = documents - 1; return p }
                }
                pids += rows.passages.map(\.pid)
                if large {
                    try embed(rows.passages[...], with: embedder, into: vectors)
                } else {
                    unembedded += rows.passages
                }
                try feed.put(rows)
            })
        } catch {
            feed.cancel()
            throw error
        }
        progress(.ingested(documents: documents, skipped: skipped.count))
        guard !pids.isEmpty else {
            feed.cancel()
            throw PublisherError.noPassages(source: options.source, skipped: skipped.count)
        }
        progress(.split(passages: pids.count))
        feed.close(corpusID: options.id, version: options.version.description, embedderID: embedder.id,
                   dimension: embedder.dimension, documents: documents)
        do {
            let step = embeddingBatch * 4 * Workers.besidePack
            for start in stride(from: 0, to: unembedded.count, by: step) {
                try embed(unembedded[start..<min(start + step, unembedded.count)], with: embedder, into: vectors)
            }
            try vectors.finish()
        } catch {
            feed.cancel()
            throw error
        }
        try feed.wait()
        progress(.packed)

        let manifest = Manifest(
            id: options.id, version: options.version, title: options.title, description: options.description,
            language: options.language, license: options.license,
            embedder: EmbedderInfo(id: embedder.id, dimension: embedder.dimension, encoding: VectorFileHeader.Encoding.int8.name,
                                   modelDigest: embedder.modelDigest),
            documents: documents, passages: pids.count,
            content: ContentDigest.make(passageIDs: pids, embedderID: embedder.id))
        let signed = try BundleWriter.write(manifest: manifest, packPath: packPath, vectorsPath: vectorsPath, key: key, to: output)
        let bytes = FileIO.fileSize(output) ?? 0
        progress(.bundled(bytes: bytes))
        return BuildSummary(manifest: signed, skipped: skipped, warnings: warnings, output: output, bytes: bytes)
    }

    /// Embeds passages in batches on the cores beside the pack thread, quantizes the vectors
    /// there too, and appends them to `vectors` in passage order.
    static func embed(_ passages: ArraySlice<Passage>, with embedder: any Embedder, into vectors: VectorFileWriter) throws {
        let base = passages.startIndex
        let batches = stride(from: base, to: passages.endIndex, by: embeddingBatch).map { $0..<min($0 + embeddingBatch, passages.endIndex) }
        let results = Workers.Slots<Result<[(values: [Int8], scale: Float)], Error>>(count: batches.count)
        Workers.forEach(batches.count, width: Workers.besidePack) { b in
            // What is embedded is what is searched: the section path and the text.
            let texts = batches[b].map { passages[$0].section.isEmpty ? passages[$0].text : "\(passages[$0].section)\n\(passages[$0].text)" }
            results.set(b, Result { try embedder.embed(texts).map(Int8Quantizer.quantize) })
        }
        for b in batches.indices {
            for row in try results.take(b)!.get() { try vectors.append(quantized: row.values, scale: row.scale) }
        }
    }

    static func makeWorkDirectory(in dir: String, for name: String) throws -> String {
        try FileIO.createDirectory(dir)
        let path = "\(dir)/.\(name).build-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectory(path, mode: 0o700)
        return path
    }
}
