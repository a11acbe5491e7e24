import Foundation
internal import CCrypto

/// A streaming message digest computed by OpenSSL's EVP interface.
///
/// OpenSSL picks the CPU's SHA extensions where present, which is why hashing a
/// bundle costs about as much as reading it. The corresponding C functions are
/// `EVP_DigestInit_ex`, `EVP_DigestUpdate` and `EVP_DigestFinal_ex`.
public final class Digest {
    public enum Algorithm: Sendable {
        case sha256
        case blake2b512

        var outputSize: Int { self == .sha256 ? 32 : 64 }
    }

    private let ctx: OpaquePointer
    public let algorithm: Algorithm
    private var finished = false

    public init(_ algorithm: Algorithm) {
        // EVP_MD_CTX_new only fails on allocation failure, which Swift treats as fatal anyway.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.ctx = ctx
        self.algorithm = algorithm
        let md = algorithm == .sha256 ? EVP_sha256() : EVP_blake2b512()
        guard EVP_DigestInit_ex(ctx, md, nil) == 1 else { fatalError("EVP_DigestInit_ex failed for a built-in digest") }
    }

    deinit { EVP_MD_CTX_free(ctx) }

    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "Digest used after finalize()")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        EVP_DigestUpdate(ctx, base, buffer.count)
    }

    public func update<D: ContiguousBytes>(_ data: D) {
        data.withUnsafeBytes { update($0) }
    }

    /// Returns the digest; the object cannot be updated afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "Digest finalized twice")
        finished = true
        var out = [UInt8](repeating: 0, count: algorithm.outputSize)
        var len: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &out, &len)
        return out
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
