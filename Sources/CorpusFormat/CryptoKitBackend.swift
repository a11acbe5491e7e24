#if canImport(CryptoKit)
import Foundation
import CryptoKit

/// The seam's Apple side: CryptoKit's SHA-256, Curve25519 signing and verification and HMAC,
/// which an app links from the platform. CryptoKit has no BLAKE2b, so minisign's prehash is the
/// package's own `BLAKE2b512` (checked against OpenSSL on Linux). Not built or run on an Apple
/// machine yet (docs/apple.md).
enum CryptoKitBackend: CryptoBackend {
    static func makeSHA256() -> any StreamingHash { CryptoKitSHA256() }
    static func makeBLAKE2b512() -> any StreamingHash { BLAKE2b512() }

    static func isValidEd25519Signature(_ signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: Data(message))
    }

    /// Swift's system generator is the platform's CSPRNG (`arc4random_buf` on Apple platforms).
    static func randomBytes(_ count: Int) throws -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func ed25519PublicKey(seed: [UInt8]) throws -> [UInt8] {
        do { return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation) }
        catch { throw FormatError.crypto(operation: "Curve25519.Signing.PrivateKey") }
    }

    /// Randomised, unlike OpenSSL's (see `CryptoImplementation.deterministicSignatures`).
    static func ed25519Sign(_ message: UnsafeRawBufferPointer, seed: [UInt8]) throws -> [UInt8] {
        do { return Array(try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: Data(message))) }
        catch { throw FormatError.crypto(operation: "Curve25519.Signing.PrivateKey.signature") }
    }

    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        Array(HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }
}

final class CryptoKitSHA256: StreamingHash {
    private var hasher = CryptoKit.SHA256()
    func update(_ buffer: UnsafeRawBufferPointer) { hasher.update(bufferPointer: buffer) }
    func finalize() -> [UInt8] { Array(hasher.finalize()) }
}
#endif
