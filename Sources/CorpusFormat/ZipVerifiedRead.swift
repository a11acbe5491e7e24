import Foundation

/// The two ways the bundle and embedder-artifact readers take a member out of an archive they
/// have already vetted: streamed against its signed hash and size, or whole when it is small.
extension ZipArchive {
    /// Streams one member through SHA-256 into `sink`, never passing on more than the signed
    /// size, then reads to the member's end so libzip checks its CRC and stored size.
    func streamVerified(at index: Int, name: String, declared: MemberInfo, chunkSize: Int,
                        progress: ((BundleProgress) -> Void)?, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let info = try info(at: index)
        // The central directory already says how much will come out; refuse before reading.
        if info.size > declared.size { throw FormatError.sizeExceeded(member: name, limit: declared.size) }
        let reader = try openEntry(at: index, name: name)
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
        let actual = Hex.encode(digest.finalize())
        guard actual == declared.sha256.lowercased() else {
            throw FormatError.hashMismatch(member: name, expected: declared.sha256, actual: actual)
        }
    }

    /// Reads a small member whole, refusing it past `limit` bytes.
    func readSmall(at index: Int, name: String, limit: Int64) throws -> Data {
        let info = try info(at: index)
        if info.size > limit { throw FormatError.sizeExceeded(member: name, limit: limit) }
        let reader = try openEntry(at: index, name: name)
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
}
