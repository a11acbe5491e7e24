import Foundation
import CorpusFormat

extension KnowledgeAppImport {
    /// The passages of every pack grouped into documents (a book of `core.pack`, or a pack's
    /// document key), documents in the order the packs first name them, passages by `ordinal`
    /// (else pack order); every passage keeps its id, which must be unique across the packs.
    static func assemble(_ packs: [KnowledgeAppPack], books: KnowledgeAppBooks?, source: ImportSource) throws -> (ImportedCorpus, rows: [Int]) {
        var owner: [String: String] = [:]
        var documentIndex: [String: Int] = [:]
        var documents: [ImportedCorpus.Document] = []
        var members: [[Int]] = []
        var all: [KnowledgeAppPack.Row] = []
        for pack in packs {
            if pack.byBook, books == nil {
                throw source.bad("\(pack.file) names its passages' books by book_id, and the folder has no \(core) to name them")
            }
            for row in pack.rows {
                if let other = owner.updateValue(pack.file, forKey: row.id) {
                    throw source.bad("passage id \(row.id.debugDescription) is in \(other) and in \(pack.file)\(other == pack.file ? " twice" : ""); passage ids must be unique")
                }
                try source.checkText(row.text, what: "\(pack.file): the text of passage \(row.id.debugDescription)")
                let key = "\(pack.file)#\(row.document)"
                let d: Int
                if let known = documentIndex[key] {
                    d = known
                } else {
                    d = documents.count
                    documentIndex[key] = d
                    documents.append(try document(row, pack: pack, books: books, source: source))
                    members.append([])
                }
                // A document's time is the latest of its pack's and its passages' (canonical
                // timestamps compare as text).
                if let t = row.timestamp, t > (documents[d].meta["timestamp"] ?? "") { documents[d].meta["timestamp"] = t }
                members[d].append(all.count)
                all.append(row)
            }
        }
        var passages: [Passage] = []
        var rows: [Int] = []
        var passageMeta: [Int: [String: String]] = [:]
        passages.reserveCapacity(all.count)
        for (d, indices) in members.enumerated() {
            let ordered = indices.sorted { (all[$0].ordinal ?? Double($0), $0) < (all[$1].ordinal ?? Double($1), $1) }
            for (k, i) in ordered.enumerated() {
                if let t = all[i].timestamp { passageMeta[passages.count] = ["timestamp": t] }
                passages.append(Passage(document: d, pid: all[i].id, ordinal: k, title: documents[d].title, section: all[i].section, text: all[i].text))
                rows.append(i)
            }
        }
        var corpus = ImportedCorpus(format: .knowledgepress, documents: documents, passages: passages, sourceIDs: true,
                                    notes: ["kept the ids of all \(passages.count) passages of \(packs.count) pack(s)"])
        corpus.passageMeta = passageMeta
        return (corpus, rows)
    }

    /// The document a passage opens: its book's title, author and genre, or the pack's own title.
    static func document(_ row: KnowledgeAppPack.Row, pack: KnowledgeAppPack, books: KnowledgeAppBooks?, source: ImportSource) throws -> ImportedCorpus.Document {
        var meta = ["source_id": row.document, "pack": (pack.file as NSString).deletingPathExtension]
        if let t = pack.timestamp { meta["timestamp"] = t }
        var title = row.title ?? row.document
        if pack.byBook {
            guard let book = books?.books[row.document] else {
                throw source.bad("\(pack.file): passage \(row.id.debugDescription) names book \(row.document.debugDescription), which \(core)'s books table does not list")
            }
            title = book.title
            meta["author"] = book.author
            meta["genre"] = book.genre
        }
        return ImportedCorpus.Document(path: "\(pack.file)#\(row.document)", title: title, meta: meta)
    }

    /// The packs' vectors (`<pack>.vectors`, or the manifest's name for them), one row per passage
    /// in each pack's `rowid` order, packs end to end; nil, with a note, when a pack has none.
    /// Every file's size is checked (and its scales, when it has them); the values are read only
    /// when `keep` says the build keeps them, else they are dropped unread.
    static func vectors(_ entries: [PackEntry], packs: [KnowledgeAppPack], embedder: NamedEmbedder, folder: SourceFolder,
                        rows: [Int], keep: Bool, source: ImportSource) throws -> (SourceVectors?, note: String?) {
        let names = entries.map { $0.vectors ?? (($0.file as NSString).deletingPathExtension + ".vectors") }
        let present = try names.map { try Self.present($0, in: folder, source: source) }
        if present.contains(true), embedder.dimension == nil {
            throw source.bad("manifest.json gives no dimension for the embedder of its vectors")
        }
        // Every vectors file there is checked, also when another pack has none and none are kept.
        let complete = !present.contains(false)
        var values: [Int8] = []
        for ((name, pack), there) in zip(zip(names, packs), present) where there {
            let file = try folder.file(at: name).get()
            values += try KnowledgeAppPack.vectors(file, in: folder, rows: pack.rows.count, dimension: embedder.dimension!,
                                                   read: keep && complete, source: source)
        }
        guard let dimension = embedder.dimension, present.contains(true) else {
            return (nil, "no \(names.joined(separator: ", ")): the passages are embedded here")
        }
        let total = packs.reduce(0) { $0 + $1.rows.count }
        guard complete else {
            // Vectors for some packs only: none can be kept (a bundle's rows all come from one model).
            let missing = zip(names, present).filter { !$0.1 }.map(\.0)
            return (SourceVectors(model: embedder.model, dimension: dimension, rows: total, values: nil, rowOfPassage: rows),
                    "no \(missing.joined(separator: ", ")): the source's vectors do not cover every passage")
        }
        return (SourceVectors(model: embedder.model, dimension: dimension, rows: total, values: keep ? .int8(values) : nil, rowOfPassage: rows), nil)
    }
}
