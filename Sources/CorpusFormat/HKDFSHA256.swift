/// HKDF-SHA-256 (RFC 5869) with a 32-byte output, built on the seam's HMAC-SHA256: the key
/// derivation of age's wrap keys, header MAC key and payload key (C2SP age, "Conventions").
///
/// One block of output needs one Extract and one Expand HMAC, so composing them here costs
/// nothing against OpenSSL's `EVP_KDF` HKDF and keeps one HMAC primitive for both backends.
enum HKDFSHA256 {
    static func deriveKey(inputKeyingMaterial ikm: [UInt8], salt: [UInt8], info: String) -> [UInt8] {
        // RFC 5869 §2.2: an empty salt is HashLen zeros, which HMAC pads to the same key.
        let prk = PlatformCrypto.hmacSHA256(key: salt, message: ikm)
        // §2.3 with L = 32: T(1) = HMAC(PRK, info || 0x01) is the whole output.
        return PlatformCrypto.hmacSHA256(key: prk, message: Array(info.utf8) + [0x01])
    }
}
