#if !canImport(CryptoKit)
import Foundation
internal import CCrypto

/// ChaCha20-Poly1305 (RFC 8439) with a 32-byte key, a 12-byte nonce, no associated data and a
/// 16-byte tag appended to the ciphertext: the AEAD of age's stanzas and STREAM chunks.
///
/// Owns one `EVP_CIPHER_CTX` keyed once, so a STREAM of 16 384 chunks a gigabyte costs one key
/// setup and one nonce setup a chunk. The corresponding C functions are `EVP_EncryptInit_ex`,
/// `EVP_EncryptUpdate`, `EVP_EncryptFinal_ex`, `EVP_DecryptInit_ex`, `EVP_DecryptUpdate`,
/// `EVP_DecryptFinal_ex` and `EVP_CIPHER_CTX_ctrl` (`EVP_CTRL_AEAD_GET_TAG` / `SET_TAG`).
final class ChaCha20Poly1305 {
    static let keySize = 32
    static let nonceSize = 12
    static let tagSize = 16

    private let ctx: OpaquePointer
    private let key: [UInt8]

    init(key: [UInt8]) throws {
        guard key.count == Self.keySize else { throw FormatError.crypto(operation: "ChaCha20-Poly1305 key length") }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw FormatError.crypto(operation: "EVP_CIPHER_CTX_new") }
        self.ctx = ctx
        self.key = key
    }

    deinit { EVP_CIPHER_CTX_free(ctx) }

    /// Encrypts `plaintext` into `output`, which holds `plaintext.count + tagSize` bytes.
    func seal(_ plaintext: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) throws {
        precondition(nonce.count == Self.nonceSize && output.count == plaintext.count + Self.tagSize)
        guard EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw FormatError.crypto(operation: "EVP_EncryptInit_ex")
        }
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var written: Int32 = 0
        if plaintext.count > 0 {
            guard EVP_EncryptUpdate(ctx, out, &written, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count)) == 1,
                  Int(written) == plaintext.count else { throw FormatError.crypto(operation: "EVP_EncryptUpdate") }
        }
        var tail: Int32 = 0
        guard EVP_EncryptFinal_ex(ctx, out + plaintext.count, &tail) == 1, tail == 0 else {
            throw FormatError.crypto(operation: "EVP_EncryptFinal_ex")
        }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagSize), out + plaintext.count) == 1 else {
            throw FormatError.crypto(operation: "EVP_CTRL_AEAD_GET_TAG")
        }
    }

    /// Decrypts and authenticates `sealed` (ciphertext then tag) into `output`, which holds
    /// `sealed.count - tagSize` bytes. False when the tag does not verify; `output` then holds
    /// unauthenticated bytes the caller must not release.
    func open(_ sealed: UnsafeRawBufferPointer, nonce: [UInt8], into output: UnsafeMutableRawBufferPointer) throws -> Bool {
        precondition(nonce.count == Self.nonceSize && sealed.count >= Self.tagSize && output.count == sealed.count - Self.tagSize)
        guard EVP_DecryptInit_ex(ctx, EVP_chacha20_poly1305(), nil, key, nonce) == 1 else {
            throw FormatError.crypto(operation: "EVP_DecryptInit_ex")
        }
        let input = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let count = sealed.count - Self.tagSize
        var written: Int32 = 0
        if count > 0 {
            guard EVP_DecryptUpdate(ctx, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, input, Int32(count)) == 1,
                  Int(written) == count else { throw FormatError.crypto(operation: "EVP_DecryptUpdate") }
        }
        // SET_TAG takes a non-const pointer but only copies from it.
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagSize), UnsafeMutablePointer(mutating: input + count)) == 1 else {
            throw FormatError.crypto(operation: "EVP_CTRL_AEAD_SET_TAG")
        }
        var tail: Int32 = 0
        var scratch: UInt8 = 0
        return withUnsafeMutablePointer(to: &scratch) { EVP_DecryptFinal_ex(ctx, $0, &tail) } == 1
    }
}

@available(*, unavailable) extension ChaCha20Poly1305: Sendable {}
#endif
