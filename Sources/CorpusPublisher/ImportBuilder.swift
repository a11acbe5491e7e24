import Foundation
import CorpusFormat
import CorpusEngine

/// What to import: another app's corpus and the bundle's catalog-facing fields. A field left nil
/// takes the source's own value (its title, description, language, license), else the default.
public struct ImportOptions: Sendable {
    public var format: ImportFormat
    public var source: String
    public var id: String
    public var version: CorpusVersion
    public var title: String?
    public var description: String?
    public var language: String?
    public var license: String?

    public init(format: ImportFormat, source: String, id: String, version: CorpusVersion, title: String? = nil,
                description: String? = nil, language: String? = nil, license: String? = nil) {
        self.format = format
        self.source = source
        self.id = id
        self.version = version
        self.title = title
        self.description = description
        self.language = language
        self.license = license
    }
}

/// What an import kept, changed and dropped, for the operator.
public struct ImportReport: Sendable, Hashable {
    public enum Vectors: Sendable, Hashable {
        /// The source's vectors are the bundle's (the embedder that made them embeds queries).
        case kept(model: String)
        /// Embedded here; `sourceModel` names the model of vectors the source had and that were not kept.
        case embedded(sourceModel: String?)
    }

    public var format: ImportFormat
    public var vectors: Vectors
    /// The reader app's "bundled" mark, which a catalog entry's `bundled` carries (a bundle cannot).
    public var bundled: Bool?
    public var notes: [String]
}

extension CorpusBuilder {
    /// Imports another app's corpus into one signed bundle: its documents, passages (ids kept where
    /// the source has them), document metadata and highlights into the pack; for vectors, the
    /// source's own when `embedder` is the model that made them (`SourceVectors.madeBy`), else
    /// `embedder`'s. The manifest names `embedder` either way: it is what embeds queries.
    ///
    /// Nothing is written when the source is refused: its copies live in the work folder, which
    /// is removed whatever happens, and an output folder this call created is removed again.
    public static func build(importing options: ImportOptions, key: SecretKey, output: String,
                             embedder: any Embedder = HashingEmbedder(),
                             progress: (BuildProgress) -> Void = { _ in }) throws -> BuildSummary {
        try Identifier.validate(options.id, what: "corpus id")
        try checkKind(options)
        let outDir = (output as NSString).deletingLastPathComponent.isEmpty ? "." : (output as NSString).deletingLastPathComponent
        let createdOut = !FileIO.exists(outDir)
        let work = try makeWorkDirectory(in: outDir, for: (output as NSString).lastPathComponent)
        var finished = false
        defer {
            FileIO.remove(work)
            if createdOut, !finished { rmdir(outDir) }
        }
        let corpus = try ImportedCorpus.load(options.format, path: options.source, scratch: work, embedder: embedder)
        try corpus.refuseNUL(ImportSource(format: options.format, path: options.source))
        progress(.ingested(documents: corpus.documents.count, skipped: 0))
        guard !corpus.passages.isEmpty else { throw PublisherError.noPassages(source: options.source, skipped: 0) }
        progress(.split(passages: corpus.passages.count))

        let kept = corpus.vectors.flatMap { $0.values != nil && $0.madeBy(embedder) ? $0 : nil }
        let (packPath, vectorsPath) = try writePack(corpus, id: options.id, version: options.version, kept: kept, embedder: embedder, work: work)
        progress(.packed)

        let manifest = Manifest(
            id: options.id, version: options.version,
            title: options.title ?? corpus.title.flatMap { $0.isEmpty ? nil : $0 } ?? options.id,
            description: options.description ?? corpus.description ?? "",
            language: options.language ?? corpus.language ?? "en", license: options.license ?? corpus.license ?? "",
            embedder: EmbedderInfo(id: embedder.id, dimension: embedder.dimension, encoding: VectorFileHeader.Encoding.int8.name,
                                   modelDigest: embedder.modelDigest),
            documents: corpus.documents.count, passages: corpus.passages.count,
            content: ContentDigest.make(passageIDs: corpus.passages.map(\.pid), embedderID: embedder.id))
        let signed = try BundleWriter.write(manifest: manifest, packPath: packPath, vectorsPath: vectorsPath, key: key, to: output)
        finished = true
        let bytes = FileIO.fileSize(output) ?? 0
        progress(.bundled(bytes: bytes))
        var summary = BuildSummary(manifest: signed, skipped: [], warnings: warnings(corpus, id: options.id), output: output, bytes: bytes)
        summary.imported = ImportReport(format: options.format,
                                        vectors: kept.map { .kept(model: $0.model) } ?? .embedded(sourceModel: corpus.vectors?.model),
                                        bundled: corpus.bundled, notes: corpus.notes + [vectorNote(corpus.vectors, kept: kept != nil, embedder: embedder)])
        return summary
    }

    /// Writes `pack.sqlite` (on the pack thread, as a build does) and `vectors.bin` into `work`.
    static func writePack(_ corpus: ImportedCorpus, id: String, version: CorpusVersion, kept: SourceVectors?, embedder: any Embedder,
                          work: String) throws -> (pack: String, vectors: String) {
        let packPath = "\(work)/pack.sqlite", vectorsPath = "\(work)/vectors.bin"
        let textBytes = corpus.passages.reduce(Int64(0)) { $0 + Int64($1.text.utf8.count) }
        let feed = PackFeed(destination: packPath, scratch: textBytes > inMemoryPackLimit ? "\(work)/pack-scratch.sqlite" : nil)
        do {
            try feedRows(corpus, into: feed)
            feed.close(corpusID: id, version: version.description, embedderID: embedder.id, dimension: embedder.dimension,
                       documents: corpus.documents.count, extraMeta: corpus.sourceIDs ? [(PackSchema.Meta.passageIDs, "source")] : [])
            // Embedding runs on the other cores while the pack thread finishes the index.
            try writeVectors(corpus, kept: kept, embedder: embedder, to: vectorsPath)
        } catch {
            feed.cancel()
            throw error
        }
        try feed.wait()
        return (packPath, vectorsPath)
    }

    /// The source must exist and be what its format reads: a folder, or a zip file.
    static func checkKind(_ options: ImportOptions) throws {
        var isFolder: ObjCBool = false
        let source = ImportSource(format: options.format, path: options.source)
        guard FileManager.default.fileExists(atPath: options.source, isDirectory: &isFolder) else {
            if options.format.sourceIsFolder { throw PublisherError.sourceNotFound(path: options.source) }
            throw source.bad("there is no such file")
        }
        if isFolder.boolValue != options.format.sourceIsFolder {
            throw source.bad(options.format.sourceIsFolder
                ? "it is a file; --from \(options.format.rawValue) reads the app's folder (Corpus/)"
                : "it is a folder; --from \(options.format.rawValue) reads the zip file the app exported")
        }
    }

    /// Hands the pack thread the documents, their metadata, passages and highlights, a few
    /// hundred documents at a time.
    static func feedRows(_ corpus: ImportedCorpus, into feed: PackFeed) throws {
        var highlightsOf: [Int: [ImportedCorpus.Highlight]] = [:]
        for h in corpus.highlights { highlightsOf[h.document, default: []].append(h) }
        var rows = PackFeed.Rows()
        var next = 0
        for (d, doc) in corpus.documents.enumerated() {
            rows.documents.append((d + 1, doc.path, doc.title))
            for key in doc.meta.keys.sorted() { rows.documentMeta.append((d + 1, key, doc.meta[key]!)) }
            while next < corpus.passages.count, corpus.passages[next].document == d {
                rows.passages.append(corpus.passages[next])
                // A passage's row in the pack is its index: rows are numbered in the order they go in.
                for (key, value) in (corpus.passageMeta[next] ?? [:]).sorted(by: { $0.key < $1.key }) {
                    rows.passageMeta.append((next, key, value))
                }
                next += 1
            }
            for h in highlightsOf[d] ?? [] {
                rows.highlights.append(PackWriter.HighlightRow(documentID: d + 1, passageRow: h.passage, text: h.text, prefix: h.prefix,
                                                               suffix: h.suffix, created: h.created))
            }
            if rows.documents.count >= 256 || rows.passages.count >= 4096 {
                try feed.put(rows)
                rows = PackFeed.Rows()
            }
        }
        precondition(next == corpus.passages.count, "imported passages are grouped by document, in document order")
        if !rows.documents.isEmpty { try feed.put(rows) }
    }

    /// `vectors.bin`: the source's rows, normalized and quantized, when kept; else embedded.
    static func writeVectors(_ corpus: ImportedCorpus, kept: SourceVectors?, embedder: any Embedder, to path: String) throws {
        let vectors = try VectorFileWriter(path: path, encoding: .int8, dimension: embedder.dimension, rows: corpus.passages.count)
        if let kept {
            for r in kept.rowOfPassage {
                var v = kept.row(r)
                let norm = v.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
                if norm > 0 { v = v.map { $0 / norm } }
                let (q, scale) = Int8Quantizer.quantize(v)
                try vectors.append(quantized: q, scale: scale)
            }
        } else {
            let step = embeddingBatch * 4 * Workers.besidePack
            for start in stride(from: 0, to: corpus.passages.count, by: step) {
                try embed(corpus.passages[start..<min(start + step, corpus.passages.count)], with: embedder, into: vectors)
            }
        }
        try vectors.finish()
    }

    static func vectorNote(_ source: SourceVectors?, kept: Bool, embedder: any Embedder) -> String {
        guard let source else { return "vectors: embedded with \(embedder.id)" }
        let theirs = "\(source.model) (\(source.dimension) dimensions)"
        if kept { return "vectors: kept the source's \(theirs), the model the manifest names (\(embedder.id))" }
        if source.madeBy(embedder) { return "vectors: the source's \(theirs) are not kept, as they do not cover every passage; embedded with \(embedder.id)" }
        if let known = KnownEncoder.all.first(where: { SourceVectors.modelName(source.model) == SourceVectors.modelName($0.id) && source.dimension == $0.hidden }) {
            return "vectors: the source's \(theirs) are not kept without the model to embed queries with; embedded with \(embedder.id) (give --embedder \(known.id) --model DIR to keep them)"
        }
        return "vectors: the source's \(theirs) are not kept: no encoder for that model here embeds queries; embedded with \(embedder.id)"
    }

    static func warnings(_ corpus: ImportedCorpus, id: String) -> [TextWarning] {
        var texts = [[String]](repeating: [], count: corpus.documents.count)
        for p in corpus.passages { texts[p.document] += [p.section, p.text] }
        return corpus.documents.enumerated().flatMap { d, doc in TextWarning.document(path: doc.path, title: doc.title, texts: texts[d], corpus: id) }
    }
}
