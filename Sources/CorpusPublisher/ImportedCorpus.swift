import Foundation
import CorpusFormat
import CorpusEngine

/// Another app's corpus, read and checked, in the publisher's terms: documents, passages in pack
/// order, what the pack keeps about documents and highlights, and the source's vectors. An
/// importer produces it; `CorpusBuilder.build(importing:key:output:)` turns it into a bundle like any other.
public struct ImportedCorpus: Sendable {
    public struct Document: Sendable, Hashable {
        /// The document's path in the pack (`chapter id`, `gutenberg.pack#1342`, `pages/tides.md`).
        public var path: String
        public var title: String
        /// `document_meta` rows (docs/format.md), key → value; `timestamp` values are canonical.
        public var meta: [String: String]
    }

    /// A highlight the user made in a document, and the passage it falls in when one holds its text.
    public struct Highlight: Sendable, Hashable {
        public var document: Int
        /// Index into `passages`, nil when no passage holds the text.
        public var passage: Int?
        public var text: String
        public var prefix: String
        public var suffix: String
        /// Canonical timestamp, when the source gave one.
        public var created: String?
    }

    public var format: ImportFormat
    /// What the source says about itself, the defaults of the bundle's catalog-facing fields.
    public var title: String?
    public var description: String?
    public var language: String?
    public var license: String?
    /// The reader app marks corpora shipped with it ("never counted against an import limit").
    public var bundled: Bool?
    public var documents: [Document]
    /// `document` indexes `documents`; `ordinal` counts within the document. Pack order.
    public var passages: [Passage]
    /// True when `passages[].pid` are the source's own ids (`meta` `passage_ids` = `source`).
    public var sourceIDs: Bool
    /// `passage_meta` rows (docs/format.md) by index into `passages`, key → value.
    public var passageMeta: [Int: [String: String]] = [:]
    public var highlights: [Highlight] = []
    /// The source's vectors, when it has any, with the source row of each passage.
    public var vectors: SourceVectors?
    /// What the importer changed or dropped and why, one line each, for the operator.
    public var notes: [String] = []
}

extension ImportedCorpus {
    /// Refuses a NUL in the documents' paths, titles and metadata and the passages' sections
    /// (SQLite text ends there, so they would be cut short without a word). Passage texts and
    /// highlights are checked by each importer, where it can name the record.
    func refuseNUL(_ source: ImportSource) throws {
        for d in documents {
            try source.checkText(d.path, what: "the document path \(d.path.debugDescription)")
            try source.checkText(d.title, what: "the title of document \(d.path.debugDescription)")
            for key in d.meta.keys.sorted() { try source.checkText(d.meta[key]!, what: "the \(key) of document \(d.path.debugDescription)") }
        }
        for p in passages { try source.checkText(p.section, what: "the section of passage \(p.pid.debugDescription)") }
    }
}

/// The source's vectors, checked: every row finite, one per source record.
public struct SourceVectors: Sendable {
    public enum Values: Sendable {
        /// Row-major little-endian float32, rows × dimension.
        case float32([Float])
        /// Row-major int8. A per-row scale, where the source has one, changes a row's length, not its
        /// direction: rows are normalized before they are quantized again, so scales are not kept.
        case int8([Int8])
    }

    /// The model as the source names it (`Snowflake/snowflake-arctic-embed-m-v1.5`).
    public var model: String
    public var dimension: Int
    public var rows: Int
    /// The values, nil when they were checked but not read (the build's embedder did not make
    /// them, so they are dropped: `madeBy`).
    public var values: Values?
    /// The source row of each passage, parallel to `ImportedCorpus.passages`.
    public var rowOfPassage: [Int]

    /// Row `r` as floats (an int8 row unscaled: its direction is all a cosine score needs).
    public func row(_ r: Int) -> [Float] {
        let range = (r * dimension)..<((r + 1) * dimension)
        switch values {
        case let .float32(v)?: return Array(v[range])
        case let .int8(v)?: return v[range].map { Float($0) }
        case nil: preconditionFailure("the rows of vectors that were not read")
        }
    }

    /// True when `embedder` is the model that made these vectors, so queries embedded with it
    /// score against them (`madeBy(model:dimension:)`).
    public func madeBy(_ embedder: any Embedder) -> Bool { Self.madeBy(model: model, dimension: dimension, embedder) }

    /// True when `embedder` embeds queries for vectors of `model`: the same model (by name, the
    /// organisation prefix and case aside), the same dimension, and a model embedder (one with a
    /// digest clients fetch it by). The model-free hashing embedder made no app's vectors.
    public static func madeBy(model: String, dimension: Int, _ embedder: any Embedder) -> Bool {
        embedder.modelDigest != nil && dimension == embedder.dimension && modelName(model) == modelName(embedder.id)
    }

    /// `sentence-transformers/all-MiniLM-L6-v2` → `all-minilm-l6-v2`.
    static func modelName(_ name: String) -> String {
        String(name.split(separator: "/").last ?? "").lowercased()
    }
}

/// Reads any of the formats.
extension ImportedCorpus {
    /// Reads the source at `path` as `format`; refusals are `PublisherError.importSource` (a field
    /// missing or malformed) or `.unsafeImportSource` (an archive entry that could escape).
    /// - Parameter scratch: a private folder for copies of SQLite packs, removed by the caller.
    /// - Parameter embedder: the build's; vectors it did not make are checked, then dropped.
    public static func load(_ format: ImportFormat, path: String, scratch: String, embedder: any Embedder) throws -> ImportedCorpus {
        switch format {
        case .corpuskit: return try ReaderAppImport.load(path: path)
        case .knowledgepress: return try KnowledgeAppImport.load(path: path, scratch: scratch, embedder: embedder)
        case .lumen: return try BrowserExportImport.load(path: path)
        }
    }
}
