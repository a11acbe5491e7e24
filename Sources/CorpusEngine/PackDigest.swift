import CorpusFormat
import Foundation

/// The logical digests of a pack, computed from its rows (docs/format.md "Rows digest"): equal for
/// equal rows whatever the bytes of the SQLite file. A publisher signs them in the manifest; a
/// client that built its pack from a delta (so its file is not the bundle's) checks its result
/// against them, and `corpus verify` checks such a pack with them again.
///
/// Rows digest: SHA-256 over `"corpus-rows-v1\n"`, then every document in ascending id as `D` ‖
/// i64(id) ‖ str(path) ‖ str(title), then every passage in ascending id as `P` ‖ i64(id) ‖ str(pid) ‖
/// i64(document_id) ‖ i64(ordinal) ‖ str(title) ‖ str(section) ‖ str(text), where i64 is 8 bytes
/// little-endian and str is i64(byte length) ‖ the UTF-8 bytes.
public enum PackDigest {
    public struct Digests: Sendable, Equatable {
        /// Over every document and passage row.
        public var rows: SHA256Digest
        /// `ContentDigest` over the passage ids read.
        public var content: SHA256Digest
        public var passages: Int
        public var documents: Int
    }

    /// Reads every row of the pack open in `db`; `embedderID` completes the content digest.
    public static func compute(_ db: Database, embedderID: String) throws -> Digests {
        let hasher = Hasher()
        hasher.bytes(Array("corpus-rows-v1\n".utf8))
        let d = try db.prepare("SELECT id, path, title FROM documents ORDER BY id")
        var documents = 0
        while try d.step() {
            hasher.tag("D")
            hasher.int(d.int(0))
            hasher.text(d.textBytes(1))
            hasher.text(d.textBytes(2))
            documents += 1
        }
        let p = try db.prepare("SELECT id, pid, document_id, ordinal, title, section, text FROM passages ORDER BY id")
        var pids: [String] = []
        while try p.step() {
            hasher.tag("P")
            hasher.int(p.int(0))
            hasher.text(p.textBytes(1))
            hasher.int(p.int(2))
            hasher.int(p.int(3))
            hasher.text(p.textBytes(4))
            hasher.text(p.textBytes(5))
            hasher.text(p.textBytes(6))
            pids.append(p.text(1))
        }
        return Digests(rows: hasher.finish(), content: ContentDigest.make(passageIDs: pids, embedderID: embedderID),
                       passages: pids.count, documents: documents)
    }

    /// Opens the pack at `path` read-only (as searches do) and computes its digests.
    public static func compute(packAt path: String, embedderID: String) throws -> Digests {
        try compute(Database(path: path, mode: .readOnly), embedderID: embedderID)
    }

    /// FTS5's integrity check of the index against the rows it indexes (`'integrity-check'` with
    /// rank 1, which also reads the external content table). FTS5 runs it as a write command, so
    /// the pack is opened read-write in a transaction that is rolled back: nothing is written.
    public static func checkIndex(packAt path: String) throws {
        let db = try Database(path: path, mode: .update)
        try db.execute("PRAGMA journal_mode=MEMORY")
        try db.execute("BEGIN")
        defer { try? db.execute("ROLLBACK") }
        try db.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES('integrity-check', 1)")
    }

    /// SHA-256 fed through a 1 MiB buffer: rows are small, and one EVP update each would dominate.
    private final class Hasher {
        private let digest = Digest(.sha256)
        private var buffer: [UInt8] = []

        init() { buffer.reserveCapacity(1 << 20) }

        func tag(_ t: Unicode.Scalar) { buffer.append(UInt8(t.value)) }

        func int(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }

        func text(_ bytes: UnsafeRawBufferPointer) {
            int(Int64(bytes.count))
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { flush() }
        }

        func bytes(_ b: [UInt8]) { buffer += b }

        private func flush() {
            digest.update(buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        func finish() -> SHA256Digest {
            flush()
            return SHA256Digest(bytes: digest.finalize())
        }
    }
}
