/// Decrypts a whole age file (header, then payload) fed in pieces, with X25519 identities: the
/// header is collected up to its MAC line, its file key unwrapped and its MAC checked, and the
/// bytes after it go to an `AgePayloadDecryptor`.
public final class AgeFileDecryptor {
    /// Longer than any header of a few stanzas; a stream without a MAC line by then is refused
    /// rather than buffered without end.
    public static let headerLimit = 64 * 1024

    private let identities: [AgeX25519Identity]
    private var headerBytes: [UInt8] = []
    private var payload: AgePayloadDecryptor?

    public init(identities: [AgeX25519Identity]) {
        self.identities = identities
    }

    public func update(_ bytes: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let payload { return try payload.update(bytes, sink: sink) }
        let before = headerBytes.count
        headerBytes += bytes
        guard let end = headerBytes.withUnsafeBytes({ AgeHeader.end(in: $0) }) else {
            guard headerBytes.count <= Self.headerLimit else { throw AgeError.headerTooLong(limit: Self.headerLimit) }
            return
        }
        let header = try AgeHeader(parsing: Array(headerBytes[..<end]))
        let decryptor = AgePayloadDecryptor(fileKey: try header.unwrap(with: identities))
        payload = decryptor
        headerBytes = []
        // The MAC line ended inside this piece: the rest of it is the payload's start.
        try decryptor.update(UnsafeRawBufferPointer(rebasing: bytes[(end - before)...]), sink: sink)
    }

    public func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let payload else { throw AgeError.malformedHeader(reason: "the file ends before the header's MAC line") }
        try payload.finish(sink: sink)
    }

    /// Decrypts the age file at `path` into `sink`, reading it in 1 MiB pieces.
    public static func decryptFile(atPath path: String, identities: [AgeX25519Identity],
                                   sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let decryptor = AgeFileDecryptor(identities: identities)
        try FileHandleReader(path: path).forEachChunk { try decryptor.update($0, sink: sink) }
        try decryptor.finish(sink: sink)
    }
}

@available(*, unavailable) extension AgeFileDecryptor: Sendable {}
