import Foundation

/// A streaming message digest, computed by the platform's crypto library through the seam
/// (`CryptoBackend`: OpenSSL's EVP on Linux, CryptoKit where it exists).
public final class Digest {
    public enum Algorithm: Sendable {
        case sha256
        case blake2b512
    }

    private let hash: any StreamingHash
    public let algorithm: Algorithm
    private var finished = false

    public init(_ algorithm: Algorithm) {
        self.algorithm = algorithm
        hash = algorithm == .sha256 ? PlatformCrypto.makeSHA256() : PlatformCrypto.makeBLAKE2b512()
    }

    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "Digest used after finalize()")
        hash.update(buffer)
    }

    public func update<D: ContiguousBytes>(_ data: D) {
        data.withUnsafeBytes { update($0) }
    }

    /// Returns the digest; the object cannot be updated afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "Digest finalized twice")
        finished = true
        return hash.finalize()
    }
}

@available(*, unavailable)
extension Digest: Sendable {}

/// SHA-256 conveniences over `Digest`.
public enum SHA256 {
    public static func hash<D: ContiguousBytes>(_ data: D) -> [UInt8] {
        let d = Digest(.sha256)
        d.update(data)
        return d.finalize()
    }

    public static func hex<D: ContiguousBytes>(_ data: D) -> String { Hex.encode(hash(data)) }

    /// Hashes a file by streaming it in 1 MiB reads; returns the digest and the byte count.
    public static func hash(fileAt path: String) throws -> (digest: [UInt8], size: Int64) {
        try hash(try FileHandleReader(path: path))
    }

    /// Hashes what is left of an open file; returns the digest and the byte count.
    public static func hash(_ file: FileHandleReader) throws -> (digest: [UInt8], size: Int64) {
        let d = Digest(.sha256)
        var total: Int64 = 0
        try file.forEachChunk { chunk in
            d.update(chunk)
            total += Int64(chunk.count)
        }
        return (d.finalize(), total)
    }
}
