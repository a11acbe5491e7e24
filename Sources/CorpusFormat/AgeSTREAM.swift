/// The constants and derivations of age's payload (C2SP age, "Payload"): a 16-byte nonce, the
/// payload key HKDF(file key, salt = nonce, info "payload"), and 64 KiB chunks sealed with
/// ChaCha20-Poly1305 under a nonce of an 11-byte big-endian counter and a last-chunk flag.
enum AgeSTREAM {
    static let nonceSize = 16
    static let chunkSize = 64 * 1024
    static let sealedChunkSize = chunkSize + ChaCha20Poly1305.tagSize

    static func cipher(fileKey: AgeFileKey, nonce: [UInt8]) throws(AgeError) -> ChaCha20Poly1305 {
        let key = HKDFSHA256.deriveKey(inputKeyingMaterial: fileKey.bytes, salt: nonce, info: "payload")
        return try AgeError.wrapping { try ChaCha20Poly1305(key: key) }
    }

    static func chunkNonce(counter: UInt64, final: Bool) -> [UInt8] {
        // The counter's top 3 of 11 bytes stay zero: 2^64 chunks are more than any file holds.
        var nonce = [UInt8](repeating: 0, count: ChaCha20Poly1305.nonceSize)
        for i in 0..<8 { nonce[3 + i] = UInt8(truncatingIfNeeded: counter >> (8 * (7 - i))) }
        nonce[11] = final ? 1 : 0
        return nonce
    }
}
