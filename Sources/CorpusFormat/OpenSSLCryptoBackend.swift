#if !canImport(CryptoKit)
import Foundation
internal import CCrypto

/// The seam's OpenSSL side (Linux): EVP digests, EVP_PKEY Ed25519, `RAND_bytes` and `HMAC`.
///
/// OpenSSL picks the CPU's SHA extensions where present, which is why hashing a bundle costs
/// about as much as reading it. The corresponding C functions are `EVP_DigestInit_ex`,
/// `EVP_DigestUpdate`, `EVP_DigestFinal_ex`, `EVP_PKEY_new_raw_public_key`, `EVP_DigestVerify`,
/// `EVP_PKEY_new_raw_private_key`, `EVP_DigestSign` (deterministic RFC 8032 signatures, pinned by
/// Ed25519KnownAnswerTests) and `HMAC` with `EVP_sha256`.
enum OpenSSLCryptoBackend: CryptoBackend {
    static func makeSHA256() -> any StreamingHash { EVPDigest(EVP_sha256(), outputSize: 32) }
    static func makeBLAKE2b512() -> any StreamingHash { EVPDigest(EVP_blake2b512(), outputSize: 64) }

    static func isValidEd25519Signature(_ signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard let key = try? PKey(publicKey: publicKey), let ctx = try? MDContext() else { return false }
        guard EVP_DigestVerifyInit(ctx.pointer, nil, nil, nil, key.pointer) == 1 else { return false }
        let r = withNonNullBase(message) { EVP_DigestVerify(ctx.pointer, signature, signature.count, $0, message.count) }
        return r == 1
    }

    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw FormatError.crypto(operation: "RAND_bytes") }
        return bytes
    }

    static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8] {
        let key = try PKey(seed: seed)
        var out = [UInt8](repeating: 0, count: Ed25519.publicKeySize)
        var len = Ed25519.publicKeySize
        guard EVP_PKEY_get_raw_public_key(key.pointer, &out, &len) == 1, len == Ed25519.publicKeySize else {
            throw FormatError.crypto(operation: "EVP_PKEY_get_raw_public_key")
        }
        return out
    }

    static func ed25519Sign(_ message: UnsafeRawBufferPointer, seed: [UInt8]) throws -> [UInt8] {
        try ed25519Sign(message, key: PKey(seed: seed))
    }

    /// Signs with a key already made from its seed: making it derives the public key, a scalar
    /// multiplication that costs about as much as the signature itself.
    static func ed25519Sign(_ message: UnsafeRawBufferPointer, key: PKey) throws -> [UInt8] {
        let ctx = try MDContext()
        guard EVP_DigestSignInit(ctx.pointer, nil, nil, nil, key.pointer) == 1 else {
            throw FormatError.crypto(operation: "EVP_DigestSignInit")
        }
        var sig = [UInt8](repeating: 0, count: Ed25519.signatureSize)
        var len = Ed25519.signatureSize
        let ok = withNonNullBase(message) { EVP_DigestSign(ctx.pointer, &sig, &len, $0, message.count) }
        guard ok == 1, len == Ed25519.signatureSize else { throw FormatError.crypto(operation: "EVP_DigestSign") }
        return sig
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in
                    // A zero-length key or message still needs a valid pointer for OpenSSL.
                    HMAC(EVP_sha256(), k.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(k.count),
                         m.baseAddress ?? UnsafePointer(bitPattern: 1), m.count, o.baseAddress, &length) != nil
                }
            }
        }
        // Only an allocation failure makes a one-shot HMAC over a built-in digest fail.
        precondition(ok && length == 32, "HMAC-SHA256 failed")
        return out
    }
}

/// Owns an `EVP_MD_CTX` for one streaming digest.
final class EVPDigest: StreamingHash {
    private let ctx: OpaquePointer
    private let outputSize: Int

    init(_ md: OpaquePointer?, outputSize: Int) {
        // EVP_MD_CTX_new only fails on allocation failure, which Swift treats as fatal anyway.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        self.ctx = ctx
        self.outputSize = outputSize
        guard EVP_DigestInit_ex(ctx, md, nil) == 1 else { fatalError("EVP_DigestInit_ex failed for a built-in digest") }
    }

    deinit { EVP_MD_CTX_free(ctx) }

    // A failed update or final (no memory, a broken provider) would leave a digest of other
    // bytes than were read, or zeros, which a crafted expected value could equal: never return
    // one. The calls fail only as allocation does, which Swift treats as fatal too.
    func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard EVP_DigestUpdate(ctx, base, buffer.count) == 1 else { fatalError("EVP_DigestUpdate failed") }
    }

    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outputSize)
        var len: UInt32 = 0
        guard EVP_DigestFinal_ex(ctx, &out, &len) == 1, Int(len) == outputSize else { fatalError("EVP_DigestFinal_ex failed") }
        return out
    }
}

/// Owns an `EVP_PKEY` handle.
final class PKey {
    let pointer: OpaquePointer

    init(seed: [UInt8]) throws {
        guard seed.count == Ed25519.seedSize else { throw FormatError.malformed(what: "Ed25519 seed", reason: "expected 32 bytes") }
        guard let p = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, seed.count) else {
            throw FormatError.crypto(operation: "EVP_PKEY_new_raw_private_key")
        }
        pointer = p
    }

    init(publicKey: [UInt8]) throws {
        guard publicKey.count == Ed25519.publicKeySize else { throw FormatError.malformed(what: "Ed25519 public key", reason: "expected 32 bytes") }
        guard let p = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, publicKey, publicKey.count) else {
            throw FormatError.crypto(operation: "EVP_PKEY_new_raw_public_key")
        }
        pointer = p
    }

    deinit { EVP_PKEY_free(pointer) }
}

/// Owns an `EVP_MD_CTX` used for one sign or verify operation.
final class MDContext {
    let pointer: OpaquePointer
    init() throws {
        guard let p = EVP_MD_CTX_new() else { throw FormatError.crypto(operation: "EVP_MD_CTX_new") }
        pointer = p
    }
    deinit { EVP_MD_CTX_free(pointer) }
}

/// OpenSSL rejects a NULL message pointer even for zero length.
func withNonNullBase<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafePointer<UInt8>) -> R) -> R {
    if let base = message.baseAddress { return body(base.assumingMemoryBound(to: UInt8.self)) }
    var zero: UInt8 = 0
    return withUnsafePointer(to: &zero) { body($0) }
}

@available(*, unavailable) extension EVPDigest: Sendable {}
@available(*, unavailable) extension PKey: Sendable {}
@available(*, unavailable) extension MDContext: Sendable {}
#endif
