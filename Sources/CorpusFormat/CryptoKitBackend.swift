#if canImport(CryptoKit)
import Foundation
import CryptoKit

/// The seam's Apple side: CryptoKit's SHA-256 and Curve25519 verification, which an app links
/// from the platform. CryptoKit has no BLAKE2b, so minisign's prehash is the package's own
/// `BLAKE2b512` (checked against OpenSSL on Linux). Not built or run on an Apple machine yet
/// (docs/apple.md).
enum CryptoKitBackend: CryptoBackend {
    static func makeSHA256() -> any StreamingHash { CryptoKitSHA256() }
    static func makeBLAKE2b512() -> any StreamingHash { BLAKE2b512() }

    static func isValidEd25519Signature(_ signature: [UInt8], message: UnsafeRawBufferPointer, publicKey: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: Data(message))
    }
}

final class CryptoKitSHA256: StreamingHash {
    private var hasher = CryptoKit.SHA256()
    func update(_ buffer: UnsafeRawBufferPointer) { hasher.update(bufferPointer: buffer) }
    func finalize() -> [UInt8] { Array(hasher.finalize()) }
}
#endif
