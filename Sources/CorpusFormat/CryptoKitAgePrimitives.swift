#if canImport(CryptoKit)
import Foundation
import CryptoKit

// The age primitives' Apple side, with the OpenSSL side's shapes (OpenSSLChaCha20Poly1305.swift,
// OpenSSLX25519.swift). Not built or run on an Apple machine yet (docs/apple.md).

final class ChaCha20Poly1305 {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16
    private let key: SymmetricKey

    init(key: [UInt8]) throws {
        guard key.count == Self.keySize else { throw FormatError.crypto(operation: "ChaCha20-Poly1305 key length") }
        self.key = SymmetricKey(data: key)
    }

    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) throws {
        precondition(nonce.count == Self.nonceSize && output.count == plaintext.count + Self.tagSize)
        do {
            let box = try ChaChaPoly.seal(Data(plaintext), using: key, nonce: ChaChaPoly.Nonce(data: nonce))
            (box.ciphertext + box.tag).copyBytes(to: output)
        } catch { throw FormatError.crypto(operation: "ChaChaPoly.seal") }
    }

    func open(_ sealed: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) throws -> Bool {
        precondition(nonce.count == Self.nonceSize && sealed.count >= Self.tagSize && output.count == sealed.count - Self.tagSize)
        guard let box = try? ChaChaPoly.SealedBox(combined: nonce + Array(sealed)),
              let plain = try? ChaChaPoly.open(box, using: key) else { return false }
        plain.copyBytes(to: output)
        return true
    }
}

@available(*, unavailable) extension ChaCha20Poly1305: Sendable {}

enum X25519 {
    static let keySize = 32

    static func publicKey(privateKey: [UInt8]) throws -> [UInt8] {
        do { return Array(try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey).publicKey.rawRepresentation) }
        catch { throw FormatError.crypto(operation: "Curve25519.KeyAgreement.PrivateKey") }
    }

    static func sharedSecret(privateKey: [UInt8], peer: [UInt8]) throws -> [UInt8]? {
        guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey),
              let peerKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer),
              let secret = try? key.sharedSecretFromKeyAgreement(with: peerKey) else { return nil }
        return secret.withUnsafeBytes { Array($0) }
    }
}
#endif
