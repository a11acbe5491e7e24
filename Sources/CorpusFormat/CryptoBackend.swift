import Foundation

/// The seam between the formats and a platform's cryptography: what the client needs to check
/// what it downloads (SHA-256, BLAKE2b-512 for minisign's prehashed signatures, Ed25519
/// verification), and what the publisher and token issuer need to make it (random seeds, Ed25519
/// keys and signatures, HMAC-SHA256 for SigV4). One implementation is compiled in: CryptoKit where
/// it exists (an app links it from the platform), OpenSSL elsewhere (`OpenSSLCryptoBackend`).
/// Everything in the package reaches it through `Digest`, `Ed25519` and `HMACSHA256`.
protocol CryptoBackend {
    static func makeSHA256() -> any StreamingHash
    static func makeBLAKE2b512() -> any StreamingHash
    /// Pure Ed25519 (RFC 8032) verification of 64-byte `signature` under a 32-byte `publicKey`
    /// (lengths already checked by the caller); false for any failure.
    static func isValidEd25519Signature(_ signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool
    /// `count` bytes from the platform's cryptographic random generator.
    static func randomBytes(_ count: Int) throws -> [UInt8]
    /// The public key of a 32-byte Ed25519 seed (length already checked).
    static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8]
    /// A pure Ed25519 signature of `message` by the key of a 32-byte seed (length already checked).
    static func ed25519Sign(_ message: UnsafeRawBufferPointer, seed: [UInt8]) throws -> [UInt8]
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]
}

/// A message digest fed in pieces; `finalize` is called once.
protocol StreamingHash: AnyObject {
    func update(_ buffer: UnsafeRawBufferPointer)
    func finalize() -> [UInt8]
}

#if canImport(CryptoKit)
typealias PlatformCrypto = CryptoKitBackend
#else
typealias PlatformCrypto = OpenSSLCryptoBackend
#endif

/// The backend this build uses, for the known-answer tests and `corpus` diagnostics.
public enum CryptoImplementation {
    #if canImport(CryptoKit)
    public static let name = "CryptoKit"
    /// CryptoKit randomises Ed25519 signatures (each still verifies under RFC 8032); OpenSSL
    /// signs deterministically, so RFC 8032's signature bytes can be compared only there.
    public static let deterministicSignatures = false
    #else
    public static let name = "OpenSSL"
    public static let deterministicSignatures = true
    #endif
}
