import Foundation
import CorpusFormat

/// The thread that owns the pack while a build runs, and the rows handed to it.
///
/// FTS5 indexing runs on one core, so the pack gets a thread of its own and the building
/// thread goes on ingesting and embedding while rows are indexed. At most `capacity` groups of
/// rows wait, so a fast producer cannot pile a whole corpus up in memory. A failure on the pack
/// thread is thrown by the next `put` (or by `wait`), and the building thread stops there.
/// `wait` and `cancel` return only after the pack thread is done with every file.
final class PackFeed: @unchecked Sendable {
    struct Rows: Sendable {
        var documents: [(id: Int, path: String, title: String)] = []
        var passages: [Passage] = []
        /// Optional `document_meta` rows (imports), by 1-based document id.
        var documentMeta: [(document: Int, key: String, value: String)] = []
        /// Optional `passage_meta` rows (imports), by passage row.
        var passageMeta: [(passage: Int, key: String, value: String)] = []
        var highlights: [PackWriter.HighlightRow] = []
    }

    struct Meta: Sendable {
        var corpusID: String
        var version: String
        var embedderID: String
        var dimension: Int
        var documents: Int
        var extra: [(String, String)]
    }

    private enum Ending { case finish(Meta), cancel }

    static let capacity = 4

    private let condition = NSCondition()
    private var waiting: [Rows] = []
    private var ending: Ending?
    private var failure: Error?
    private var done = false

    /// Starts the pack thread; `PackWriter(path:scratch:indexed:)` runs there.
    init(destination: String, scratch: String?, indexed: Bool = true) {
        let thread = Thread { [self] in run(destination: destination, scratch: scratch, indexed: indexed) }
        thread.name = "pack writer"
        thread.start()
    }

    /// Queues rows, waiting while `capacity` groups are already queued.
    func put(_ rows: Rows) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= Self.capacity && !done { condition.wait() }
        if let failure { throw failure }
        precondition(!done && ending == nil, "PackFeed.put after the feed ended")
        waiting.append(rows)
        condition.broadcast()
    }

    /// Lets the pack thread index what is queued, then write the meta rows and the finished
    /// pack; returns at once (`wait` for the outcome).
    func close(corpusID: String, version: String, embedderID: String, dimension: Int, documents: Int,
               extraMeta: [(String, String)] = []) {
        end(.finish(Meta(corpusID: corpusID, version: version, embedderID: embedderID, dimension: dimension,
                         documents: documents, extra: extraMeta)))
    }

    /// Drops what is queued and stops the pack thread without writing the pack; returns when it stopped.
    func cancel() {
        end(.cancel)
        try? wait()
    }

    /// Waits for the pack thread; throws what it failed with.
    func wait() throws {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        if let failure { throw failure }
    }

    private func end(_ how: Ending) {
        condition.lock()
        defer { condition.unlock() }
        if case .cancel = how {
            ending = how
            waiting.removeAll()
        } else if ending == nil {
            ending = how
        }
        condition.broadcast()
    }

    /// The next rows to index, or nil once the feed ended and nothing is left to index.
    private func next() -> Rows? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && ending == nil { condition.wait() }
        guard !waiting.isEmpty else { return nil }
        condition.broadcast()
        return waiting.removeFirst()
    }

    private func run(destination: String, scratch: String?, indexed: Bool) {
        var failed: Error?
        do {
            let pack = try PackWriter(path: destination, scratch: scratch, indexed: indexed)
            while let rows = next() {
                for d in rows.documents { try pack.addDocument(id: d.id, path: d.path, title: d.title) }
                for p in rows.passages { try pack.addPassage(p, documentID: p.document + 1) }
                for m in rows.documentMeta { try pack.addDocumentMeta(documentID: m.document, key: m.key, value: m.value) }
                for m in rows.passageMeta { try pack.addPassageMeta(passageRow: m.passage, key: m.key, value: m.value) }
                for h in rows.highlights { try pack.addHighlight(h) }
            }
            condition.lock()
            let how = ending
            condition.unlock()
            if case let .finish(m)? = how {
                try pack.finish(corpusID: m.corpusID, version: m.version, embedderID: m.embedderID,
                                dimension: m.dimension, documents: m.documents, extraMeta: m.extra)
            }
        } catch {
            failed = error
        }
        condition.lock()
        failure = failed
        waiting.removeAll()
        done = true
        condition.broadcast()
        condition.unlock()
    }
}
