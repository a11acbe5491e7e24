import Foundation
import CorpusFormat
import CorpusEngine

/// `--from corpuskit`: the reader app's `.corpus.zip` (docs/import.md, "Reader app"): chapters
/// become documents, their chunks passages (de-overlapped, keeping the chunks' ids), the
/// per-chapter importance weights document metadata; `embeddings.npy` is checked row for row.
enum ReaderAppImport {
    static let metaLimit = 16 << 20
    static let chunksLimit = 512 << 20
    static let weightFiles = ["importance.json", "chapter_weights.json", "weights.json"]
    /// The model the reader app embeds with, when its metadata does not say.
    static let defaultModel = "Snowflake/snowflake-arctic-embed-m-v1.5"

    /// A chapter as `corpus_meta.json` lists it: an object with an id, or a bare string (or
    /// integer), which is the chapter's title and, when the chunks name their chapters by it, its id.
    struct Chapter: Decodable {
        var id: SourceID
        var title: String?
        var order: Double?
        var importance: Double?
        /// Listed as a bare string: a title, which serves as the id only if the chunks use it so.
        var bare = false

        init(from decoder: Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(SourceID.self) {
                id = name
                title = name.text
                bare = true
                return
            }
            let c = try decoder.container(keyedBy: AnyKey.self)
            self.id = try c.required(SourceID.self, "id")
            title = try c.first(String.self, "title", "name")
            order = try c.first(Double.self, "order", "index")
            importance = try c.first(Double.self, "importance", "weight")
        }
    }

    struct Meta: Decodable {
        var title: String?
        var description: String?
        var language: String?
        var license: String?
        var chapters: [Chapter]?
        /// Why `chapters` was there and not read (`wrong type at chapters.0`): the field is
        /// optional and the chunks name their chapters, so the import goes on without it.
        var chaptersUnread: String?
        var weights: [String: Double]?
        var model: String?
        var dimension: Int?
        var bundled: Bool?

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            title = try c.first(String.self, "title", "name")
            description = try c.first(String.self, "description", "source")
            language = try c.first(String.self, "language")
            license = try c.first(String.self, "license")
            do { chapters = try c.first([Chapter].self, "chapters") } catch { chaptersUnread = CanonicalJSON.reason(error) }
            weights = try c.first([String: Double].self, "chapter_weights", "importance")
            model = try c.first(String.self, "embedding_model", "embedder", "model")
            dimension = try c.first(Int.self, "embedding_dimension", "dimension")
            bundled = try c.first(Bool.self, "bundled")
        }
    }

    struct Chunk: Decodable {
        var id: SourceID?
        var chapter: SourceID
        var text: String
        var order: Double?
        var section: String?

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            id = try c.first(SourceID.self, "id")
            self.chapter = try c.required(SourceID.self, "chapter", "chapter_id")
            self.text = try c.required(String.self, "text")
            order = try c.first(Double.self, "order", "index", "position")
            section = try c.first(String.self, "section", "heading")
        }
    }

    struct ChunkList: Decodable {
        var chunks: [Chunk]
    }

    static func load(path: String) throws -> ImportedCorpus {
        let source = ImportSource(format: .corpuskit, path: path)
        let (archive, root) = try source.openArchive()
        if BundleKind.classify(archive.names) == .corpusSync {
            throw source.bad("it is a CorpusSync bundle already (it holds corpus.json): import it with corpus import, or publish it with \"bundle\" in catalog.json")
        }
        let meta = try source.decode(Meta.self, try source.read(archive, "corpus_meta.json", root: root, limit: metaLimit), name: "corpus_meta.json")
        let chunkBytes = try source.read(archive, "chunks.json", root: root, limit: chunksLimit)
        let chunks = ImportSource.firstJSONByte(chunkBytes) == UInt8(ascii: "{")
            ? try source.decode(ChunkList.self, chunkBytes, name: "chunks.json").chunks
            : try source.decode([Chunk].self, chunkBytes, name: "chunks.json")
        guard !chunks.isEmpty else { throw source.bad("chunks.json holds no chunks") }
        let weights = try chapterWeights(meta, archive: archive, root: root, source: source)
        let (chapters, chaptersNote) = try orderedChapters(meta, chunks: chunks, weights: weights, source: source)
        var (corpus, rows) = try passages(chunks, chapters: chapters, source: source)
        if let chaptersNote { corpus.notes.insert(chaptersNote, at: 0) }
        corpus.title = meta.title
        corpus.description = meta.description
        corpus.language = meta.language
        corpus.license = meta.license
        corpus.bundled = meta.bundled
        if meta.bundled == true {
            corpus.notes.append("the reader app ships this corpus bundled (never counted against an import limit): publish it with \"bundled\": true")
        }
        if archive.contains(root + "embeddings.npy") {
            corpus.vectors = try vectors(archive, root: root, chunks: chunks, meta: meta, rows: rows, source: source)
        } else {
            corpus.notes.append("the corpus has no embeddings.npy; its passages are embedded here")
        }
        return corpus
    }

    /// Importance weights by chapter id: the chapters' own, else a top-level object, else a weights file.
    static func chapterWeights(_ meta: Meta, archive: ForeignArchive, root: String, source: ImportSource) throws -> [String: Double] {
        var weights = meta.weights ?? [:]
        if weights.isEmpty, let name = weightFiles.first(where: { archive.contains(root + $0) }) {
            weights = try source.decode([String: Double].self, try source.read(archive, name, root: root, limit: metaLimit), name: name)
        }
        for c in meta.chapters ?? [] { if let w = c.importance { weights[c.id.text] = w } }
        for (chapter, w) in weights where !(w.isFinite && w >= 0) {
            throw source.bad("the importance of chapter \(chapter.debugDescription) is \(w), not a number ≥ 0")
        }
        return weights
    }

    typealias ChapterInfo = (id: String, title: String, importance: Double?)

    /// The chapters in reading order: the metadata's, by `order`; else as the chunks first name them.
    /// A list holding bare strings is a list of titles: they are the chapters only when they can
    /// be (unique, valid ids, every chunk's chapter among them); otherwise the list is set aside,
    /// as is a `chapters` that does not decode, and the note says so. A list of objects is the
    /// source's own account of its chapters, so a chunk it does not list is refused.
    /// - Returns: the chapters, and the note when `chapters` was set aside.
    static func orderedChapters(_ meta: Meta, chunks: [Chunk], weights: [String: Double],
                                source: ImportSource) throws -> (chapters: [ChapterInfo], note: String?) {
        let chunksOwn = "the chapters are the ones the chunks name, in the order they first appear, titled by their ids"
        var note = meta.chaptersUnread.map { "corpus_meta.json: chapters was not read (\($0)); \(chunksOwn)" }
        if let listed = meta.chapters, !listed.isEmpty {
            if listed.contains(where: \.bare), let unusable = unusableTitles(listed, chunks: chunks, source: source) {
                note = "corpus_meta.json: chapters lists plain titles that cannot stand for the chapters (\(unusable)); \(chunksOwn)"
            } else {
                return (try listedChapters(listed, chunks: chunks, weights: weights, source: source), nil)
            }
        }
        var out: [ChapterInfo] = []
        var seen = Set<String>()
        for chunk in chunks where seen.insert(chunk.chapter.text).inserted {
            try source.checkID(chunk.chapter.text, what: "chapter")
            out.append((chunk.chapter.text, chunk.chapter.text, weights[chunk.chapter.text]))
        }
        return (out, note)
    }

    /// Why a list holding bare titles cannot be the chapters, or nil when it can.
    static func unusableTitles(_ listed: [Chapter], chunks: [Chunk], source: ImportSource) -> String? {
        var seen = Set<String>()
        for c in listed {
            if c.bare, (try? source.checkID(c.id.text, what: "chapter")) == nil {
                return "\(c.id.text.prefix(40).debugDescription) is no chapter id"
            }
            if !seen.insert(c.id.text).inserted { return "\(c.id.text.debugDescription) is listed twice" }
        }
        if let n = chunks.firstIndex(where: { !seen.contains($0.chapter.text) }) {
            return "chunk \(n) names chapter \(chunks[n].chapter.text.debugDescription), which the list does not hold"
        }
        return nil
    }

    /// The listed chapters, by `order` (else as listed); every chunk must name one of them.
    static func listedChapters(_ listed: [Chapter], chunks: [Chunk], weights: [String: Double], source: ImportSource) throws -> [ChapterInfo] {
        var out: [ChapterInfo] = []
        var seen = Set<String>()
        let sorted = listed.enumerated().sorted { ($0.element.order ?? Double($0.offset), $0.offset) < ($1.element.order ?? Double($1.offset), $1.offset) }
        for (_, c) in sorted {
            try source.checkID(c.id.text, what: "chapter")
            guard seen.insert(c.id.text).inserted else { throw source.bad("corpus_meta.json lists chapter \(c.id.text.debugDescription) twice") }
            out.append((c.id.text, c.title ?? c.id.text, weights[c.id.text]))
        }
        for (n, chunk) in chunks.enumerated() where !seen.contains(chunk.chapter.text) {
            throw source.bad("chunks.json: chunk \(n) names chapter \(chunk.chapter.text.debugDescription), which corpus_meta.json's chapters do not list")
        }
        return out
    }

    /// The passages: each chapter's chunks in order, de-overlapped (`ChunkOverlap`), their ids kept.
    /// - Returns: the corpus without vectors, and the chunk (the row of `embeddings.npy`) of each passage.
    static func passages(_ chunks: [Chunk], chapters: [ChapterInfo], source: ImportSource) throws -> (ImportedCorpus, rows: [Int]) {
        let withIDs = chunks.filter { $0.id != nil }.count
        guard withIDs == 0 || withIDs == chunks.count else {
            let n = chunks.firstIndex { $0.id == nil }!
            throw source.bad("chunks.json: chunk \(n) has no id while others do")
        }
        var firstUse: [String: Int] = [:]
        for (n, c) in chunks.enumerated() {
            try source.checkText(c.text, what: "chunks.json: the text of chunk \(n)")
            guard let id = c.id?.text else { continue }
            try source.checkID(id, what: "chunk")
            if let earlier = firstUse.updateValue(n, forKey: id) {
                throw source.bad("chunks.json: chunk id \(id.debugDescription) is used twice (chunks \(earlier) and \(n))")
            }
        }
        let index = Dictionary(uniqueKeysWithValues: chapters.enumerated().map { ($0.element.id, $0.offset) })
        var byChapter = [[Int]](repeating: [], count: chapters.count)
        for (n, c) in chunks.enumerated() { byChapter[index[c.chapter.text]!].append(n) }

        var documents: [ImportedCorpus.Document] = []
        var passages: [Passage] = []
        var rows: [Int] = []
        var dropped = 0, trimmed = 0, empty = 0
        for (d, chapter) in chapters.enumerated() {
            var meta: [String: String] = [:]
            if let w = chapter.importance { meta["importance"] = String(w) }
            documents.append(.init(path: chapter.id, title: chapter.title, meta: meta))
            let ordered = byChapter[d].sorted { (chunks[$0].order ?? Double($0), $0) < (chunks[$1].order ?? Double($1), $1) }
            var previous: String?
            var inSection: [String: Int] = [:]
            var ordinal = 0
            for n in ordered {
                let chunk = chunks[n]
                guard let first = ChunkOverlap.words(chunk.text).first else { empty += 1; continue }
                var text = ChunkOverlap.trimmedText(chunk.text, from: first)
                if let previous {
                    switch ChunkOverlap.remainder(of: chunk.text, after: previous) {
                    case .dropped: dropped += 1; continue
                    case let .kept(rest, removed): if removed > 0 { trimmed += 1 }; text = rest
                    }
                }
                previous = chunk.text
                let section = chunk.section ?? ""
                let inThisSection = inSection[section, default: 0]
                inSection[section] = inThisSection + 1
                let pid = chunk.id?.text ?? PassageID.make(documentPath: chapter.id, section: section, ordinal: inThisSection, text: text)
                passages.append(Passage(document: d, pid: pid, ordinal: ordinal, title: chapter.title, section: section, text: text))
                ordinal += 1
                rows.append(n)
            }
        }
        var notes: [String] = []
        if trimmed + dropped > 0 {
            notes.append("de-overlapped the chunks: \(trimmed) began with the end of the chunk before, which was cut; \(dropped) lay wholly inside it and were dropped")
        }
        if empty > 0 { notes.append("skipped \(empty) chunk(s) without text") }
        return (ImportedCorpus(format: .corpuskit, documents: documents, passages: passages, sourceIDs: withIDs > 0, notes: notes), rows)
    }

    /// `embeddings.npy`, checked: float32, C order, one row per chunk of `chunks.json`, the
    /// dimension the metadata names, every value finite.
    static func vectors(_ archive: ForeignArchive, root: String, chunks: [Chunk], meta: Meta, rows: [Int],
                        source: ImportSource) throws -> SourceVectors {
        let limit = (1 << 16) + chunks.count * 4096 * 4
        let bytes = try source.read(archive, "embeddings.npy", root: root, limit: limit)
        let matrix: NumpyMatrix
        do { matrix = try NumpyMatrix(bytes) } catch { throw source.bad("embeddings.npy \(error)") }
        guard matrix.rows == chunks.count else {
            throw source.bad("embeddings.npy has \(matrix.rows) rows and chunks.json \(chunks.count) chunks; row i is the vector of chunk i")
        }
        if let d = meta.dimension, d != matrix.columns {
            throw source.bad("embeddings.npy has \(matrix.columns) columns, corpus_meta.json says embedding_dimension \(d)")
        }
        guard (1...4096).contains(matrix.columns) else { throw source.bad("embeddings.npy has \(matrix.columns) columns; a vector has 1 to 4096") }
        if let bad = matrix.values.firstIndex(where: { !$0.isFinite }) {
            let row = bad / matrix.columns
            let chunk = chunks[row].id.map { " (chunk \($0.text.debugDescription))" } ?? ""
            throw source.bad("embeddings.npy row \(row)\(chunk) holds NaN or an infinity")
        }
        return SourceVectors(model: meta.model ?? defaultModel, dimension: matrix.columns, rows: matrix.rows,
                             values: .float32(matrix.values), rowOfPassage: rows)
    }
}
