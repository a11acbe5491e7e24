#if !canImport(CryptoKit)
import Foundation
internal import CCrypto

/// X25519 (RFC 7748 §5) through OpenSSL's `EVP_PKEY_X25519`: the public key of a scalar and the
/// shared secret of a scalar and a peer's public key. The corresponding C functions are
/// `EVP_PKEY_new_raw_private_key`, `EVP_PKEY_new_raw_public_key`, `EVP_PKEY_get_raw_public_key`
/// and `EVP_PKEY_derive`.
enum X25519 {
    static let keySize = 32

    static func publicKey(privateKey: [UInt8]) throws -> [UInt8] {
        let key = try X25519Key(privateKey: privateKey)
        var out = [UInt8](repeating: 0, count: keySize)
        var len = keySize
        guard EVP_PKEY_get_raw_public_key(key.pointer, &out, &len) == 1, len == keySize else {
            throw FormatError.crypto(operation: "EVP_PKEY_get_raw_public_key")
        }
        return out
    }

    /// The shared secret, or nil when OpenSSL refuses the derivation: it does so for a low-order
    /// peer point, whose secret is all zeros (the caller checks for zeros as well).
    static func sharedSecret(privateKey: [UInt8], peer: [UInt8]) throws -> [UInt8]? {
        let key = try X25519Key(privateKey: privateKey)
        let peerKey = try X25519Key(publicKey: peer)
        guard let ctx = EVP_PKEY_CTX_new(key.pointer, nil) else { throw FormatError.crypto(operation: "EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1 else { throw FormatError.crypto(operation: "EVP_PKEY_derive_init") }
        guard EVP_PKEY_derive_set_peer(ctx, peerKey.pointer) == 1 else { return nil }
        var out = [UInt8](repeating: 0, count: keySize)
        var len = keySize
        guard EVP_PKEY_derive(ctx, &out, &len) == 1, len == keySize else { return nil }
        return out
    }
}

/// Owns an `EVP_PKEY` of type X25519.
private final class X25519Key {
    let pointer: OpaquePointer

    init(privateKey: [UInt8]) throws {
        guard privateKey.count == X25519.keySize,
              let p = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, privateKey, privateKey.count) else {
            throw FormatError.crypto(operation: "EVP_PKEY_new_raw_private_key")
        }
        pointer = p
    }

    init(publicKey: [UInt8]) throws {
        guard publicKey.count == X25519.keySize,
              let p = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, publicKey, publicKey.count) else {
            throw FormatError.crypto(operation: "EVP_PKEY_new_raw_public_key")
        }
        pointer = p
    }

    deinit { EVP_PKEY_free(pointer) }
}
#endif
