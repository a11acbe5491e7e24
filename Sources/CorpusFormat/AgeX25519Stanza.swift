/// The X25519 recipient stanza (C2SP age, "X25519 recipient stanza"):
/// `-> X25519 <ephemeral share>` and a body that is the file key sealed with
/// ChaCha20-Poly1305 under HKDF(shared secret, salt = share || recipient,
/// info "age-encryption.org/v1/X25519"), nonce twelve zeros.
enum AgeX25519Stanza {
    static let type = "X25519"
    static let info = "age-encryption.org/v1/X25519"
    private static let zeroNonce = [UInt8](repeating: 0, count: ChaCha20Poly1305.nonceSize)
    private static let sealedSize = AgeFileKey.size + ChaCha20Poly1305.tagSize

    static func wrap(_ fileKey: AgeFileKey, to recipient: AgeX25519Recipient) throws(AgeError) -> AgeHeader.Stanza {
        try AgeError.wrapping {
            let ephemeral = try PlatformCrypto.randomBytes(X25519.keySize)
            let share = try X25519.publicKey(privateKey: ephemeral)
            guard let secret = try X25519.sharedSecret(privateKey: ephemeral, peer: recipient.publicKey),
                  secret.contains(where: { $0 != 0 }) else { throw AgeError.lowOrderShare }
            let wrapKey = HKDFSHA256.deriveKey(inputKeyingMaterial: secret, salt: share + recipient.publicKey, info: info)
            var body = [UInt8](repeating: 0, count: sealedSize)
            try fileKey.bytes.withUnsafeBytes { plain in
                try body.withUnsafeMutableBytes { try ChaCha20Poly1305(key: wrapKey).seal(plain, nonce: zeroNonce, into: $0) }
            }
            return AgeHeader.Stanza(arguments: [type, AgeBase64.encode(share)], body: body)
        }
    }

    /// The file key, or nil when the stanza is for another identity (its body does not open).
    /// A stanza that breaks the X25519 rules is refused rather than skipped, as the spec requires.
    static func unwrap(_ stanza: AgeHeader.Stanza, with identity: AgeX25519Identity) throws(AgeError) -> AgeFileKey? {
        guard stanza.arguments.count == 2 else { throw .malformedStanza(reason: "expected 2 arguments") }
        guard let share = AgeBase64.decode(Substring(stanza.arguments[1])), share.count == X25519.keySize else {
            throw .malformedStanza(reason: "the share is not canonical base64 of 32 bytes")
        }
        // Checked before decrypting, against partitioning oracles (the spec's MUST).
        guard stanza.body.count == sealedSize else { throw .malformedStanza(reason: "the body is not 32 bytes") }
        return try AgeError.wrapping {
            guard let secret = try X25519.sharedSecret(privateKey: identity.scalar, peer: share),
                  secret.contains(where: { $0 != 0 }) else { throw AgeError.lowOrderShare }
            let wrapKey = HKDFSHA256.deriveKey(inputKeyingMaterial: secret, salt: share + identity.recipient.publicKey, info: info)
            var fileKey = [UInt8](repeating: 0, count: AgeFileKey.size)
            let opened = try stanza.body.withUnsafeBytes { sealed in
                try fileKey.withUnsafeMutableBytes { try ChaCha20Poly1305(key: wrapKey).open(sealed, nonce: zeroNonce, into: $0) }
            }
            return opened ? try AgeFileKey(bytes: fileKey) : nil
        }
    }
}
