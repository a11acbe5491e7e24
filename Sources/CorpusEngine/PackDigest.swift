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
        let hasher = RowsHasher()
        let d = try db.prepare("SELECT id, path, title FROM documents ORDER BY id")
        var documents = 0
        while try d.step() {
            hasher.document(id: d.int(0), path: d.textBytes(1), title: d.textBytes(2))
            documents += 1
        }
        let p = try db.prepare("SELECT id, pid, document_id, ordinal, title, section, text FROM passages ORDER BY id")
        var pids: [String] = []
        while try p.step() {
            hasher.passage(id: p.int(0), pid: p.textBytes(1), documentID: p.int(2), ordinal: p.int(3),
                           title: p.textBytes(4), section: p.textBytes(5), text: p.textBytes(6))
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

    /// The rows digest of rows handed over in the order the digest takes them (every document
    /// in ascending id, then every passage in ascending id): a builder that holds the rows it
    /// wrote computes the digest a reader of its pack does without reading the pack back.
    /// SHA-256 fed through a 1 MiB buffer: rows are small, and one EVP update each would dominate.
    public final class RowsHasher {
        private let digest = Digest(.sha256)
        private var buffer: [UInt8] = []

        public init() {
            buffer.reserveCapacity(1 << 20)
            buffer += Array("corpus-rows-v1\n".utf8)
        }

        public func document(id: Int64, path: UnsafeRawBufferPointer, title: UnsafeRawBufferPointer) {
            tag("D")
            int(id)
            text(path)
            text(title)
        }

        public func passage(id: Int64, pid: UnsafeRawBufferPointer, documentID: Int64, ordinal: Int64,
                            title: UnsafeRawBufferPointer, section: UnsafeRawBufferPointer, text body: UnsafeRawBufferPointer) {
            tag("P")
            int(id)
            text(pid)
            int(documentID)
            int(ordinal)
            text(title)
            text(section)
            text(body)
        }

        /// A document row from Swift strings (hashed as their UTF-8, as SQLite stores them).
        public func document(id: Int, path: String, title: String) {
            var path = path, title = title
            path.withUTF8 { p in title.withUTF8 { t in document(id: Int64(id), path: UnsafeRawBufferPointer(p), title: UnsafeRawBufferPointer(t)) } }
        }

        /// A passage row from Swift strings.
        public func passage(id: Int, pid: String, documentID: Int, ordinal: Int, title: String, section: String, text body: String) {
            var pid = pid, title = title, section = section, body = body
            pid.withUTF8 { p in title.withUTF8 { t in section.withUTF8 { s in body.withUTF8 { b in
                passage(id: Int64(id), pid: UnsafeRawBufferPointer(p), documentID: Int64(documentID), ordinal: Int64(ordinal),
                        title: UnsafeRawBufferPointer(t), section: UnsafeRawBufferPointer(s), text: UnsafeRawBufferPointer(b))
            } } } }
        }

        private func tag(_ t: Unicode.Scalar) { buffer.append(UInt8(t.value)) }

        private func int(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }

        private func text(_ bytes: UnsafeRawBufferPointer) {
            int(Int64(bytes.count))
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { flush() }
        }

        private func flush() {
            digest.update(buffer)
            buffer.removeAll(keepingCapacity: true)
        }

        public func finish() -> SHA256Digest {
            flush()
            return SHA256Digest(bytes: digest.finalize())
        }
    }
}

@available(*, unavailable) extension PackDigest.RowsHasher: Sendable {}
