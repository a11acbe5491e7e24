import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the vector file of a version reached by a delta: row r of the new file is the delta's
/// next vector when the delta adds row r, the base's row `from` when it keeps a passage there from
/// another row, and the base's row r otherwise (docs/format.md "Delta"). The output is hashed as it
/// is written, so the caller compares it with the new manifest without reading it again.
public enum VectorFilePatch {
    /// Where each listed row's vector comes from: a base row (kept) or the delta's vector file (added).
    public enum Source: Sendable, Equatable {
        case base(Int)
        case delta
    }

    /// Writes `rows` rows to a new file at `output`, taking `listed` (ascending by row) from
    /// `added` or `base`, every other row from `base` at the same place.
    /// - Returns: the SHA-256 and size of what was written.
    /// - Throws: `DeltaError.baseMismatch` when a row falls outside the base or the delta runs out
    ///   of vectors (or has some left), `FormatError` for files that do not read or write.
    public static func write(rows: Int, listed: [(row: Int, source: Source)], base basePath: String, added addedPath: String,
                             to output: String) throws -> (sha256: SHA256Digest, size: Int64) {
        let base = try open(basePath), added = try open(addedPath)
        let b = try VectorFileHeader.decode(base.bytes, fileSize: base.size)
        let a = try VectorFileHeader.decode(added.bytes, fileSize: added.size)
        guard a.encoding == b.encoding, a.dimension == b.dimension else {
            throw DeltaError.baseMismatch(reason: "the delta's vectors are \(a.dimension) \(a.encoding.name), the installed ones \(b.dimension) \(b.encoding.name)")
        }
        let header = VectorFileHeader(encoding: b.encoding, dimension: b.dimension, rows: rows)
        // Row r's source row, in one of the two files.
        var sources = [(fromBase: Bool, row: Int)]()
        sources.reserveCapacity(rows)
        var iterator = listed.makeIterator()
        var pending = iterator.next()
        var addedUsed = 0
        for r in 0..<rows {
            if let p = pending, p.row == r {
                switch p.source {
                case let .base(from): sources.append((true, from))
                case .delta: sources.append((false, addedUsed)); addedUsed += 1
                }
                pending = iterator.next()
            } else {
                sources.append((true, r))
            }
        }
        guard addedUsed == a.rows else { throw DeltaError.baseMismatch(reason: "the delta carries \(a.rows) vectors for \(addedUsed) added rows") }
        if let bad = sources.first(where: { $0.fromBase && $0.row >= b.rows }) {
            throw DeltaError.baseMismatch(reason: "row \(bad.row) of the installed vectors does not exist (it has \(b.rows))")
        }

        let writer = try HashingWriter(path: output)
        var done = false
        defer { if !done { writer.discard() } }
        try writer.write(header.encoded())
        for s in sources {
            let (file, h) = s.fromBase ? (base, b) : (added, a)
            try writer.write(UnsafeRawBufferPointer(rebasing: file.bytes[(h.matrixOffset + s.row * h.rowBytes)...].prefix(h.rowBytes)))
        }
        if header.encoding == .int8 {
            try writer.write([UInt8](repeating: 0, count: header.scalesOffset - (header.matrixOffset + rows * header.rowBytes)))
            for s in sources {
                let (file, h) = s.fromBase ? (base, b) : (added, a)
                try writer.write(UnsafeRawBufferPointer(rebasing: file.bytes[(h.scalesOffset + s.row * 4)...].prefix(4)))
            }
        }
        let result = try writer.finish()
        done = true
        return result
    }

    private static func open(_ path: String) throws -> MappedFile {
        do { return try MappedFile(path: path) } catch { throw FormatError(error) }
    }

    /// A new file written through a 1 MiB buffer and SHA-256, fsynced when finished.
    private final class HashingWriter {
        let path: String
        let fd: Int32
        let digest = Digest(.sha256)
        var buffer: [UInt8] = []
        var size: Int64 = 0

        init(path: String) throws {
            fd = SystemCall.retrying { Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
            guard fd >= 0 else { throw FormatError.io(operation: "create", path: path, errno: errno) }
            self.path = path
            buffer.reserveCapacity(1 << 20)
        }

        deinit { close(fd) }

        func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
        }

        private func flush() throws {
            try buffer.withUnsafeBytes { raw in
                digest.update(raw)
                try FileIO.writeAll(fd, raw, path: path)
            }
            size += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
        }

        func finish() throws -> (sha256: SHA256Digest, size: Int64) {
            try flush()
            guard fsync(fd) == 0 else { throw FormatError.io(operation: "fsync", path: path, errno: errno) }
            return (SHA256Digest(bytes: digest.finalize()), size)
        }

        func discard() { unlink(path) }
    }
}
