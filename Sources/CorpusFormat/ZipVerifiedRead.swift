import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How the bundle and embedder-artifact readers take members out of an archive they have already
/// vetted: streamed against their signed hash and size, whole when small, or extracted to a folder.
extension ZipReader {
    /// Streams one member through SHA-256 into `sink`, never passing on more than the signed
    /// size, then reads to the member's end so the reader checks its CRC and stored size.
    func streamVerified(at index: Int, name: String, declared: MemberInfo, chunkSize: Int,
                        progress: ((BundleProgress) -> Void)?, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        // The central directory already says how much will come out; refuse before reading.
        if try backend.uncompressedSize(at: index) > declared.size { throw FormatError.sizeExceeded(member: name, limit: declared.size) }
        let reader = try backend.openMember(at: index, name: name)
        let digest = Digest(.sha256)
        var total: Int64 = 0
        // Read at most one byte past the signed size: enough to notice that more is coming.
        let pipeline = ZipEntryPipeline(reader: reader, chunkSize: chunkSize, limit: declared.size + 1)
        try pipeline.forEachChunk { chunk in
            let allowed = Int(min(Int64(chunk.count), declared.size - total))
            if allowed > 0 {
                let accepted = UnsafeRawBufferPointer(rebasing: chunk[0..<allowed])
                digest.update(accepted)
                try sink(accepted)
                total += Int64(allowed)
                progress?(BundleProgress(member: name, bytesDone: total, bytesTotal: declared.size))
            }
            if allowed < chunk.count { throw FormatError.sizeExceeded(member: name, limit: declared.size) }
        }
        guard total == declared.size else { throw FormatError.sizeMismatch(member: name, expected: declared.size, actual: total) }
        let actual = SHA256Digest(bytes: digest.finalize())
        guard actual == declared.sha256 else {
            throw FormatError.hashMismatch(member: name, expected: declared.sha256.hex, actual: actual.hex)
        }
    }

    /// Reads a small member whole, refusing it past `limit` bytes.
    func readSmall(at index: Int, name: String, limit: Int64) throws -> Data {
        if try backend.uncompressedSize(at: index) > limit { throw FormatError.sizeExceeded(member: name, limit: limit) }
        let reader = try backend.openMember(at: index, name: name)
        var out = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let want = Int(min(Int64(buffer.count), limit + 1 - Int64(out.count)))
            let n = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            if n == 0 { break }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if Int64(out.count) > limit { throw FormatError.sizeExceeded(member: name, limit: limit) }
        }
        return out
    }

    /// Extracts a verified archive into `directory`, which must not exist yet: the manifest and
    /// signature (already verified by the caller) and every payload member, each hashed as written
    /// and fsynced, go to a staging folder beside `directory`, renamed into place only when all
    /// verified. On any failure the staging folder is removed and the parent is left as it was.
    func extractVerified(to directory: String, manifest: (name: String, bytes: Data), signature: (name: String, text: String),
                         payload: [(name: String, index: Int, declared: MemberInfo)], chunkSize: Int,
                         progress: ((BundleProgress) -> Void)?) throws {
        var st = stat()
        guard lstat(directory, &st) != 0 else { throw FormatError.io(operation: "extract into", path: directory, errno: EEXIST) }
        let parent = (directory as NSString).deletingLastPathComponent
        let staging = FileIO.temporarySibling(of: directory, kind: "staging")
        guard mkdir(staging, 0o755) == 0 else { throw FormatError.io(operation: "create directory", path: staging, errno: errno) }
        var done = false
        defer { if !done { FileIO.remove(staging) } }
        try writeVerified(into: staging, manifest: manifest, signature: signature, payload: payload, chunkSize: chunkSize, progress: progress)
        FileIO.syncDirectory(staging)
        try Self.renameNoReplace(staging, directory)
        done = true
        FileIO.syncDirectory(parent.isEmpty ? "." : parent)
    }

    /// Writes the verified manifest, its signature and every payload member (hashed as it is
    /// written) into `directory`, an empty folder the caller owns, fsyncing each file. The caller
    /// syncs the folder and moves it into place; on a failure it removes the folder.
    func writeVerified(into directory: String, manifest: (name: String, bytes: Data), signature: (name: String, text: String),
                       payload: [(name: String, index: Int, declared: MemberInfo)], chunkSize: Int,
                       progress: ((BundleProgress) -> Void)?) throws {
        try FileIO.writeNew(manifest.bytes, to: "\(directory)/\(manifest.name)")
        try FileIO.writeNew(Data(signature.text.utf8), to: "\(directory)/\(signature.name)")
        // Largest first: its writeback (`NewFileWriter`) then goes on while the smaller members
        // are inflated, instead of the fsync at the end waiting for the disk alone. For the
        // 1 GiB bench bundle the disk took 1.4 s after the vectors' last write when the pack came first.
        for member in payload.sorted(by: { $0.declared.size > $1.declared.size }) {
            try FileIO.writeNew("\(directory)/\(member.name)") { file in
                try streamVerified(at: member.index, name: member.name, declared: member.declared, chunkSize: chunkSize,
                                   progress: progress, sink: file.write)
            }
        }
    }

    /// Moves the verified staging folder into place with rename(2).
    ///
    /// rename(2) of a folder cannot replace a non-empty folder or a file; the one thing it could
    /// replace is an empty folder created after our existence check, which loses nothing.
    /// (renameat2 with RENAME_NOREPLACE is not visible to Swift through Glibc.)
    static func renameNoReplace(_ from: String, _ to: String) throws {
        var st = stat()
        guard lstat(to, &st) != 0 else { throw FormatError.io(operation: "rename", path: to, errno: EEXIST) }
        guard rename(from, to) == 0 else { throw FormatError.io(operation: "rename", path: to, errno: errno) }
    }
}
