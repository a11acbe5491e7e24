import Foundation

/// Ed25519 (RFC 8032), through the crypto seam (`CryptoBackend`): verification for everyone,
/// key generation and signing for the publisher and the token issuer.
///
/// Key material is handled as raw bytes: a 32-byte seed (the private key of RFC 8032) and a
/// 32-byte public key.
public enum Ed25519 {
    public static let seedSize = 32
    public static let publicKeySize = 32
    public static let signatureSize = 64

    /// A fresh seed from the platform's cryptographic random generator.
    public static func randomSeed() throws -> [UInt8] {
        try PlatformCrypto.randomBytes(seedSize)
    }

    /// Derives the public key of a seed.
    public static func publicKey(seed: [UInt8]) throws -> [UInt8] {
        try checkSeed(seed)
        return try PlatformCrypto.ed25519PublicKey(seed: seed)
    }

    /// Signs `message` (pure Ed25519, no prehash).
    public static func sign(_ message: UnsafeRawBufferPointer, seed: [UInt8]) throws -> [UInt8] {
        try checkSeed(seed)
        return try PlatformCrypto.ed25519Sign(message, seed: seed)
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

    private static func checkSeed(_ seed: [UInt8]) throws {
        guard seed.count == seedSize else { throw FormatError.malformed(what: "Ed25519 seed", reason: "expected 32 bytes") }
    }
}
