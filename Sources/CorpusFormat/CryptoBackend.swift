import Foundation

/// The seam between the formats and a platform's cryptography: what the client needs to check
/// what it downloads (SHA-256, BLAKE2b-512 for minisign's prehashed signatures, Ed25519
/// verification). One implementation is compiled in: CryptoKit where it exists (an app links it
/// from the platform), OpenSSL elsewhere (`OpenSSLCryptoBackend`). Everything in the package that
/// hashes or verifies reaches it through `Digest` and `Ed25519.verify`; docs/apple.md lists what
/// still calls OpenSSL directly and why.
protocol CryptoBackend {
    static func makeSHA256() -> any StreamingHash
    static func makeBLAKE2b512() -> any StreamingHash
    /// Pure Ed25519 (RFC 8032) verification of 64-byte `signature` under a 32-byte `publicKey`
    /// (lengths already checked by the caller); false for any failure.
    static func isValidEd25519Signature(_ signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool
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
    #else
    public static let name = "OpenSSL"
    #endif
}
