import Foundation
import CorpusFormat
import CorpusEngine

/// Where the rows of a published version are, so that the next version keeps them there
/// (docs/format.md "Stable rows"): a passage that stays keeps its row, rows its removed passages
/// leave are taken by added ones, and only when the corpus shrinks do passages past the new end
/// move down into holes. The pack and vector file of the new version then differ from the old one
/// only where passages changed, which is what keeps a delta small and cheap to apply.
///
/// Documents keep their ids the same way: a document path that stays keeps its id, new documents
/// take the smallest ids no document of the new version uses.
public struct RowLayout: Sendable, Equatable {
    /// Passage id → row (`passages.id`).
    public var rows: [String: Int]
    /// Document path → `documents.id`.
    public var documents: [String: Int]

    public init(rows: [String: Int], documents: [String: Int]) {
        self.rows = rows
        self.documents = documents
    }

    /// The layout of the pack at `path`.
    public static func read(packAt path: String) throws -> RowLayout {
        let db = try Database(path: path, mode: .readOnly)
        var layout = RowLayout(rows: [:], documents: [:])
        let p = try db.prepare("SELECT pid, id FROM passages")
        while try p.step() { layout.rows[p.text(0)] = Int(p.int(1)) }
        let d = try db.prepare("SELECT path, id FROM documents")
        while try d.step() { layout.documents[d.text(0)] = Int(d.int(1)) }
        return layout
    }

    /// The ids of the new version's documents (`paths`, in build order) and the rows of its
    /// passages (`pids`, in build order), following this layout.
    public func assign(paths: [String], pids: [String]) -> (documentIDs: [Int], rows: [Int]) {
        (assign(keys: paths, kept: documents, firstFree: 1), assign(keys: pids, kept: rows, firstFree: 0))
    }

    /// Keys found in `kept` at a place below the new count keep it; the others, in order, take the
    /// free places from the lowest up. Places run from `firstFree` to `firstFree + keys.count - 1`.
    private func assign(keys: [String], kept: [String: Int], firstFree base: Int) -> [Int] {
        let end = base + keys.count
        var out = [Int](repeating: -1, count: keys.count)
        var taken = [Bool](repeating: false, count: keys.count)
        for (i, key) in keys.enumerated() {
            if let place = kept[key], place >= base, place < end, !taken[place - base] {
                out[i] = place
                taken[place - base] = true
            }
        }
        var free = 0
        for i in out.indices where out[i] < 0 {
            while taken[free] { free += 1 }
            out[i] = base + free
            taken[free] = true
        }
        return out
    }
}
