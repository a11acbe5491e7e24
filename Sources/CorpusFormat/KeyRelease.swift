/// The key request a client sends the gate, and the gate's answer (docs/format.md "Key request"):
///
///     GET <gate>/v1/keys/<payload sha256>?recipient=age1…
///     Authorization: Bearer <entitlement token>
///
/// answered `200` with an age header (`text/plain`) whose single X25519 stanza wraps that payload's
/// file key to the recipient. Header plus payload is then a standard age file for the device's
/// identity; the file key itself never crosses the network.
public enum KeyRelease {
    /// The route under `/v1/`.
    public static let route = "keys"
    /// A header of one X25519 stanza is about 200 bytes; an answer larger than this is not one.
    public static let maxAnswerBytes: Int64 = 4096

    /// The request URL for the payload `payload` and the device's recipient.
    public static func url(gate: String, payload: SHA256Digest, recipient: AgeX25519Recipient) -> String {
        (gate.hasSuffix("/") ? gate : gate + "/") + "v1/\(route)/\(payload.hex)?recipient=\(recipient.encoded)"
    }

    /// The gate's answer: a fresh header wrapping `fileKey` to `recipient` alone.
    public static func answer(fileKey: AgeFileKey, recipient: AgeX25519Recipient) throws(AgeError) -> [UInt8] {
        try AgeHeader.make(fileKey: fileKey, recipients: [recipient]).encoded
    }

    /// The file key in a gate's answer, for this device's identity: the answer must be one
    /// header of exactly one stanza, and that stanza must open with the identity (a header for
    /// another device is `noMatchingIdentity`) and its MAC verify.
    public static func open(answer bytes: [UInt8], identity: AgeX25519Identity) throws(AgeError) -> (header: AgeHeader, fileKey: AgeFileKey) {
        let header = try AgeHeader(parsing: bytes)
        guard header.stanzas.count == 1 else { throw .malformedHeader(reason: "a key answer holds exactly one stanza, this one \(header.stanzas.count)") }
        return (header, try header.unwrap(with: [identity]))
    }
}
