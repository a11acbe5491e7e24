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
    public var output: String
    public var bytes: Int64
    public var documents: Int { manifest.documents }
    public var passages: Int { manifest.passages }
}

/// Builds one signed corpus bundle from a folder of documents:
/// ingest → passages → pack + vectors (in parallel) → manifest → `BundleWriter`.
///
/// Intermediate files live in a dot-folder beside the output (same volume) and are removed
/// whatever happens; the output appears only complete (BundleWriter renames it into place).
public enum CorpusBuilder {
    public static let embeddingBatch = 256

    public static func build(_ options: BuildOptions, key: SecretKey, output: String,
                             embedder: any Embedder = HashingEmbedder(),
                             progress: (BuildProgress) -> Void = { _ in }) throws -> BuildSummary {
        try Identifier.validate(options.id, what: "corpus id")
        let ingested = try Ingest.folder(options.source)
        progress(.ingested(documents: ingested.documents.count, skipped: ingested.skipped.count))

        var passages: [Passage] = []
        for (i, doc) in ingested.documents.enumerated() {
            passages += PassageSplitter.passages(of: doc, document: i)
        }
        guard !passages.isEmpty else {
            throw PublisherError.noPassages(source: options.source, skipped: ingested.skipped.count)
        }
        progress(.split(passages: passages.count))

        let outDir = (output as NSString).deletingLastPathComponent
        let work = try makeWorkDirectory(in: outDir.isEmpty ? "." : outDir, for: (output as NSString).lastPathComponent)
        defer { FileIO.remove(work) }
        let packPath = "\(work)/pack.sqlite", vectorsPath = "\(work)/vectors.bin"

        // Embedding and SQLite are independent until the bundle is written: run them side by side.
        let vectorError = ErrorBox()
        let group = DispatchGroup()
        let frozen = passages
        DispatchQueue.global(qos: .userInitiated).async(group: group) {
            do { try writeVectors(frozen, embedder: embedder, to: vectorsPath) } catch { vectorError.set(error) }
        }
        do {
            try writePack(documents: ingested.documents, passages: passages, options: options, embedder: embedder, to: packPath)
        } catch {
            group.wait()
            throw error
        }
        group.wait()
        if let e = vectorError.error { throw e }
        progress(.packed)

        let manifest = Manifest(
            id: options.id, version: options.version, title: options.title, description: options.description,
            language: options.language, license: options.license,
            embedder: EmbedderInfo(id: embedder.id, dimension: embedder.dimension, encoding: VectorFileHeader.Encoding.int8.name,
                                   digest: embedder.modelDigest),
            documents: ingested.documents.count, passages: passages.count,
            contentDigest: ContentDigest.make(passageIDs: passages.map(\.pid), embedderID: embedder.id))
        let signed = try BundleWriter.write(manifest: manifest, packPath: packPath, vectorsPath: vectorsPath, key: key, to: output)
        let bytes = FileIO.fileSize(output) ?? 0
        progress(.bundled(bytes: bytes))
        return BuildSummary(manifest: signed, skipped: ingested.skipped, output: output, bytes: bytes)
    }

    static func writePack(documents: [SourceDocument], passages: [Passage], options: BuildOptions,
                          embedder: any Embedder, to path: String) throws {
        let pack = try PackWriter(path: path)
        for (i, doc) in documents.enumerated() {
            try pack.addDocument(id: i + 1, path: doc.path, title: doc.title)
        }
        for p in passages {
            try pack.addPassage(p, documentID: p.document + 1)
        }
        try pack.finish(corpusID: options.id, version: options.version.description, embedderID: embedder.id,
                        dimension: embedder.dimension, documents: documents.count)
    }

    static func writeVectors(_ passages: [Passage], embedder: any Embedder, to path: String) throws {
        let writer = try VectorFileWriter(path: path, encoding: .int8, dimension: embedder.dimension, rows: passages.count)
        // Batches are embedded on every core a group at a time, then appended in row order.
        let group = embeddingBatch * max(1, ProcessInfo.processInfo.activeProcessorCount)
        var start = 0
        while start < passages.count {
            let end = min(start + group, passages.count)
            let batches = stride(from: start, to: end, by: embeddingBatch).map { $0..<min($0 + embeddingBatch, end) }
            let results = BatchResults(count: batches.count)
            DispatchQueue.concurrentPerform(iterations: batches.count) { b in
                // What is embedded is what is searched: the section path and the text.
                let texts = batches[b].map { passages[$0].section.isEmpty ? passages[$0].text : "\(passages[$0].section)\n\(passages[$0].text)" }
                results.set(b, Result { try embedder.embed(texts) })
            }
            for b in batches.indices {
                for v in try results.get(b) { try writer.append(v) }
            }
            start = end
        }
        try writer.finish()
    }

    /// Embedding results of one group of batches, each slot written by one worker.
    final class BatchResults: @unchecked Sendable {
        private let lock = NSLock()
        private var slots: [Result<[[Float]], Error>?]

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        func set(_ i: Int, _ r: Result<[[Float]], Error>) {
            lock.lock(); defer { lock.unlock() }
            slots[i] = r
        }

        func get(_ i: Int) throws -> [[Float]] {
            lock.lock(); defer { lock.unlock() }
            return try slots[i]!.get()
        }
    }

    static func makeWorkDirectory(in dir: String, for name: String) throws -> String {
        try FileIO.createDirectory(dir)
        let path = "\(dir)/.\(name).build-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileIO.createDirectory(path, mode: 0o700)
        return path
    }
}

/// The first error a background task hit, read after it finished.
final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Error?

    func set(_ e: Error) {
        lock.lock(); defer { lock.unlock() }
        if stored == nil { stored = e }
    }

    var error: Error? {
        lock.lock(); defer { lock.unlock() }
        return stored
    }
}
