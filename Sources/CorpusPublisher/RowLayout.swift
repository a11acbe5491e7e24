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
    /// The previous version's vector file and the embedder that made it: a passage that stays has
    /// the same section and text, so with the same embedder its vector is copied, not computed.
    public var vectors: Vectors?

    public struct Vectors: Sendable, Equatable {
        public var path: String
        public var embedderID: String
        public var modelDigest: SHA256Digest?

        public init(path: String, embedderID: String, modelDigest: SHA256Digest?) {
            self.path = path
            self.embedderID = embedderID
            self.modelDigest = modelDigest
        }
    }

    public init(rows: [String: Int], documents: [String: Int], vectors: Vectors? = nil) {
        self.rows = rows
        self.documents = documents
        self.vectors = vectors
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

/// The int8 vectors of a previous version's passages, by passage id, when they were made by the
/// embedder a build uses now (same id and model digest); a build copies them instead of embedding.
final class ReusableVectors {
    private let file: MappedFile
    private let header: VectorFileHeader
    private let rows: [String: Int]

    /// Nil when the layout carries no vectors, or they are of another embedder or encoding.
    init?(layout: RowLayout, embedder: any Embedder) throws {
        guard let v = layout.vectors, v.embedderID == embedder.id, v.modelDigest == embedder.modelDigest else { return nil }
        do { file = try MappedFile(path: v.path) } catch { throw FormatError(error) }
        header = try VectorFileHeader.decode(file.bytes, fileSize: file.size)
        guard header.encoding == .int8, header.dimension == embedder.dimension else { return nil }
        rows = layout.rows
    }

    func vector(of pid: String) -> (values: [Int8], scale: Float)? {
        guard let r = rows[pid], r < header.rows else { return nil }
        let start = header.matrixOffset + r * header.rowBytes
        let values = file.bytes[start..<start + header.rowBytes].map { Int8(bitPattern: $0) }
        let scale = Float(bitPattern: UInt32(littleEndian: file.bytes.loadUnaligned(fromByteOffset: header.scalesOffset + r * 4, as: UInt32.self)))
        return (values, scale)
    }
}

@available(*, unavailable) extension ReusableVectors: Sendable {}
