import Foundation
internal import CCrypto

/// Ed25519 (RFC 8032). Verification goes through the crypto seam (`CryptoBackend`); key
/// generation and signing, which only the publisher and the token issuer do, stay on OpenSSL's
/// EVP_PKEY interface (deterministic RFC 8032 signatures, pinned by Ed25519KnownAnswerTests).
///
/// Key material is handled as raw bytes: a 32-byte seed (the private key of
/// RFC 8032) and a 32-byte public key. The corresponding C functions are
/// `EVP_PKEY_new_raw_private_key` and `EVP_DigestSign`.
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

    /// Verifies a signature through the platform's crypto (`CryptoBackend`); false for any
    /// mismatch, wrong length or invalid key.
    public static func verify(signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize else { return false }
        return PlatformCrypto.isValidEd25519Signature(signature, message: message, publicKey: publicKey)
    }

    public static func verify<D: ContiguousBytes>(signature: [UInt8], message: D, publicKey: [UInt8]) -> Bool {
        message.withUnsafeBytes { verify(signature: signature, message: $0, publicKey: publicKey) }
    }
}
