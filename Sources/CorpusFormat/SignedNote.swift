import Foundation

/// A C2SP signed note: a text ending in a newline, a blank line, then signature lines
/// `— <key name> base64(key ID || signature)`.
///
/// The text means nothing until a trusted key's signature over it verifies (`verified(by:)`).
public struct SignedNote: Equatable, Sendable {
    /// Verifiers must take at least 16 signatures; past these bounds a note is refused unread.
    public static let maxSignatures = 100
    public static let maxSize = 1 << 20

    public struct Signature: Equatable, Sendable {
        public var keyName: String
        public var keyID: UInt32
        /// What follows the key ID: the signature algorithm's output.
        public var signature: [UInt8]

        public init(keyName: String, keyID: UInt32, signature: [UInt8]) {
            self.keyName = keyName
            self.keyID = keyID
            self.signature = signature
        }

        /// `— <key name> <base64>\n`.
        public var line: String {
            let id = [UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xff), UInt8(keyID >> 8 & 0xff), UInt8(keyID & 0xff)]
            return "\u{2014} \(keyName) \(Data(id + signature).base64EncodedString())\n"
        }
    }

    /// The signed text, final newline included.
    public let text: String
    public private(set) var signatures: [Signature]

    public init(text: String, signatures: [Signature] = []) throws {
        try Self.checkCharacters(text)
        guard text.hasSuffix("\n") else { throw TransparencyLogError.malformedNote(reason: "text does not end in a newline") }
        self.text = text
        self.signatures = signatures
    }

    /// The note's bytes as served: text, blank line, signature lines.
    public var bytes: [UInt8] { Array((text + "\n" + signatures.map(\.line).joined()).utf8) }

    /// Parses a note; no signature is checked here.
    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count <= Self.maxSize else { throw TransparencyLogError.malformedNote(reason: "larger than \(Self.maxSize) bytes") }
        guard let whole = String(bytes: bytes, encoding: .utf8) else { throw TransparencyLogError.malformedNote(reason: "not UTF-8") }
        try Self.checkCharacters(whole)
        // The text ends at the last blank line: its first newline belongs to the text.
        var split: Int?
        for i in stride(from: bytes.count - 2, through: 0, by: -1) where bytes[i] == 0x0a && bytes[i + 1] == 0x0a {
            split = i
            break
        }
        guard let split else { throw TransparencyLogError.malformedNote(reason: "no blank line before the signatures") }
        let text = String(decoding: bytes[...split], as: UTF8.self)
        let block = bytes[(split + 2)...]
        guard !block.isEmpty, block.last == 0x0a else { throw TransparencyLogError.malformedNote(reason: "no signature lines") }
        var signatures: [Signature] = []
        for line in String(decoding: block.dropLast(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            guard signatures.count < Self.maxSignatures else { throw TransparencyLogError.malformedNote(reason: "more than \(Self.maxSignatures) signatures") }
            signatures.append(try Self.parseSignature(line))
        }
        self.text = text
        self.signatures = signatures
    }

    private static func parseSignature(_ line: Substring) throws -> Signature {
        guard line.hasPrefix("\u{2014} ") else { throw TransparencyLogError.malformedNote(reason: "a signature line does not start with an em dash and a space") }
        let rest = line.dropFirst(2)
        guard let space = rest.lastIndex(of: " ") else { throw TransparencyLogError.malformedNote(reason: "a signature line has no signature") }
        let name = String(rest[..<space])
        try NoteKeyName.check(name)
        let encoded = String(rest[rest.index(after: space)...])
        guard let decoded = Data(base64Encoded: encoded), decoded.base64EncodedString() == encoded, decoded.count > 4 else {
            throw TransparencyLogError.malformedNote(reason: "the signature of \(name) is not base64 of a key ID and a signature")
        }
        let raw = [UInt8](decoded)
        let id = UInt32(raw[0]) << 24 | UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8 | UInt32(raw[3])
        return Signature(keyName: name, keyID: id, signature: Array(raw[4...]))
    }

    /// Valid UTF-8 (a Swift string is), no control characters but the newline.
    private static func checkCharacters(_ text: String) throws {
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" }) else {
            throw TransparencyLogError.malformedNote(reason: "control character")
        }
    }

    /// Adds the signature of `signer` over the text, replacing an earlier one by the same key.
    public mutating func sign(with signer: any NoteSigner) throws {
        let signature = Signature(keyName: signer.keyName, keyID: signer.keyID, signature: try signer.sign(text: Array(text.utf8)))
        signatures.removeAll { $0.keyName == signature.keyName && $0.keyID == signature.keyID }
        signatures.append(signature)
    }

    /// The signatures by known keys, all verified. A signature whose key name and ID match a known
    /// key must verify (else the whole note is refused); others are ignored; at least one must verify.
    public func verified(by verifiers: [any NoteVerifier]) throws -> [Signature] {
        let message = Array(text.utf8)
        var good: [Signature] = []
        for signature in signatures {
            guard let verifier = verifiers.first(where: { $0.keyName == signature.keyName && $0.keyID == signature.keyID }) else { continue }
            guard verifier.verify(text: message, signature: signature.signature) else {
                throw TransparencyLogError.signatureInvalid(keyName: signature.keyName)
            }
            good.append(signature)
        }
        guard !good.isEmpty else { throw TransparencyLogError.noTrustedSignature }
        return good
    }
}
