import Foundation
internal import CCrypto

/// Ed25519 (RFC 8032) through OpenSSL's EVP_PKEY interface.
///
/// Key material is handled as raw bytes: a 32-byte seed (the private key of
/// RFC 8032) and a 32-byte public key. The corresponding C functions are
/// `EVP_PKEY_new_raw_private_key`, `EVP_DigestSign` and `EVP_DigestVerify`.
public enum Ed25519 {
    public static let seedSize = 32
    public static let publicKeySize = 32
    public static let signatureSize = 64

    /// A fresh seed from OpenSSL's CSPRNG (`RAND_bytes`).
    public static func randomSeed() throws -> [UInt8] {
        var seed = [UInt8](repeating: 0, count: seedSize)
        guard RAND_bytes(&seed, Int32(seedSize)) == 1 else { throw FormatError.crypto(operation: "RAND_bytes") }
        return seed
    }

    /// Derives the public key of a seed.
    public static func publicKey(seed: [UInt8]) throws -> [UInt8] {
        let key = try PKey(seed: seed)
        var out = [UInt8](repeating: 0, count: publicKeySize)
        var len = publicKeySize
        guard EVP_PKEY_get_raw_public_key(key.pointer, &out, &len) == 1, len == publicKeySize else {
            throw FormatError.crypto(operation: "EVP_PKEY_get_raw_public_key")
        }
        return out
    }

    /// Signs `message` (pure Ed25519, no prehash).
    public static func sign(_ message: UnsafeRawBufferPointer, seed: [UInt8]) throws -> [UInt8] {
        let key = try PKey(seed: seed)
        let ctx = try MDContext()
        guard EVP_DigestSignInit(ctx.pointer, nil, nil, nil, key.pointer) == 1 else {
            throw FormatError.crypto(operation: "EVP_DigestSignInit")
        }
        var sig = [UInt8](repeating: 0, count: signatureSize)
        var len = signatureSize
        let ok = withNonNullBase(message) { EVP_DigestSign(ctx.pointer, &sig, &len, $0, message.count) }
        guard ok == 1, len == signatureSize else { throw FormatError.crypto(operation: "EVP_DigestSign") }
        return sig
    }

    public static func sign<D: ContiguousBytes>(_ message: D, seed: [UInt8]) throws -> [UInt8] {
        try message.withUnsafeBytes { try sign($0, seed: seed) }
    }

    /// Verifies a signature; false for any mismatch, wrong length or invalid key.
    public static func verify(signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize else { return false }
        guard let key = try? PKey(publicKey: publicKey), let ctx = try? MDContext() else { return false }
        guard EVP_DigestVerifyInit(ctx.pointer, nil, nil, nil, key.pointer) == 1 else { return false }
        let r = withNonNullBase(message) { EVP_DigestVerify(ctx.pointer, signature, signature.count, $0, message.count) }
        return r == 1
    }

    public static func verify<D: ContiguousBytes>(signature: [UInt8], message: D, publicKey: [UInt8]) -> Bool {
        message.withUnsafeBytes { verify(signature: signature, message: $0, publicKey: publicKey) }
    }

    // OpenSSL rejects a NULL message pointer even for zero length.
    private static func withNonNullBase<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        if let base = message.baseAddress { return body(base.assumingMemoryBound(to: UInt8.self)) }
        var zero: UInt8 = 0
        return withUnsafePointer(to: &zero) { body($0) }
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

@available(*, unavailable) extension PKey: Sendable {}
@available(*, unavailable) extension MDContext: Sendable {}
