/// An age v1 header (C2SP age, "Header"): recipient stanzas that each wrap the file key, and an
/// HMAC-SHA-256 over the header text keyed by HKDF(file key, "header").
///
/// Parsing follows "ABNF definition of file header" strictly: LF line ends only, body lines of
/// exactly 64 columns ended by a shorter one, canonical unpadded base64 everywhere.
public struct AgeHeader: Sendable, Equatable {
    public struct Stanza: Sendable, Equatable {
        public let arguments: [String]
        public let body: [UInt8]
    }

    static let versionLine = "age-encryption.org/v1"
    static let columns = 64
    static let macSize = 32

    public let stanzas: [Stanza]
    let mac: [UInt8]
    /// The header's bytes up to and including the `---` mark: what the MAC covers.
    let macInput: [UInt8]

    /// The header's whole text, MAC line included: what precedes the payload in an age file.
    public var encoded: [UInt8] {
        macInput + Array(" \(AgeBase64.encode(mac))\n".utf8)
    }

    /// A header wrapping `fileKey` to each recipient, with a fresh ephemeral share per stanza.
    public static func make(fileKey: AgeFileKey, recipients: [AgeX25519Recipient]) throws(AgeError) -> AgeHeader {
        let stanzas = try recipients.map { r throws(AgeError) in try AgeX25519Stanza.wrap(fileKey, to: r) }
        var text = Array((versionLine + "\n").utf8)
        for stanza in stanzas {
            text += Array(("-> " + stanza.arguments.joined(separator: " ") + "\n").utf8)
            let body = Array(AgeBase64.encode(stanza.body).utf8)
            var start = 0
            // Full 64-column lines, then a shorter final one, empty when the body fills its lines.
            while body.count - start >= columns {
                text += body[start..<(start + columns)] + [0x0A]
                start += columns
            }
            text += body[start...] + [0x0A]
        }
        text += Array("---".utf8)
        return AgeHeader(stanzas: stanzas, mac: macOf(text, fileKey: fileKey), macInput: text)
    }

    /// Unwraps the file key with the first X25519 stanza one of `identities` opens, then checks
    /// the header MAC under it. Stanzas of other types are ignored (C2SP age, "Recipient stanza").
    public func unwrap(with identities: [AgeX25519Identity]) throws(AgeError) -> AgeFileKey {
        for stanza in stanzas where stanza.arguments.first == AgeX25519Stanza.type {
            for identity in identities {
                if let key = try AgeX25519Stanza.unwrap(stanza, with: identity) {
                    // Constant-time comparison is moot here: the MAC is checked once per header.
                    guard Self.macOf(macInput, fileKey: key) == mac else { throw .headerMACMismatch }
                    return key
                }
            }
        }
        throw .noMatchingIdentity
    }

    static func macOf(_ text: [UInt8], fileKey: AgeFileKey) -> [UInt8] {
        let key = HKDFSHA256.deriveKey(inputKeyingMaterial: fileKey.bytes, salt: [], info: "header")
        return PlatformCrypto.hmacSHA256(key: key, message: text)
    }

    /// Where the header in `bytes` ends (the index after the MAC line's LF), or nil while no MAC
    /// line has ended yet. Only the MAC line starts with `-` and a third `-`.
    static func end(in bytes: UnsafeRawBufferPointer) -> Int? {
        var lineStart = 0
        var inMACLine = false
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            if inMACLine { return i + 1 }
            lineStart = i + 1
            if lineStart + 3 <= bytes.count, bytes[lineStart] == 0x2D, bytes[lineStart + 1] == 0x2D, bytes[lineStart + 2] == 0x2D {
                inMACLine = true
            }
        }
        return nil
    }

    /// Parses a whole header, MAC line included and nothing after it.
    public init(parsing bytes: [UInt8]) throws(AgeError) {
        // Header lines hold printable ASCII; a CR (CRLF line ends) or other control byte is refused.
        guard bytes.allSatisfy({ $0 == 0x0A || (0x20...0x7E).contains($0) }) else {
            throw .malformedHeader(reason: "a byte outside printable ASCII")
        }
        guard bytes.last == 0x0A else { throw .malformedHeader(reason: "no line feed after the MAC") }
        let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines[0].hasPrefix("age-encryption.org/") else { throw .malformedHeader(reason: "no age version line") }
        guard lines[0] == Self.versionLine else { throw .unsupportedVersion(String(lines[0].dropFirst("age-encryption.org/".count))) }
        var stanzas: [Stanza] = []
        var index = 1
        while index < lines.count, lines[index].hasPrefix("->") {
            let (stanza, next) = try Self.parseStanza(lines, at: index)
            stanzas.append(stanza)
            index = next
        }
        guard !stanzas.isEmpty else { throw .malformedHeader(reason: "no recipient stanza") }
        guard index == lines.count - 1, lines[index].hasPrefix("--- ") else {
            throw .malformedHeader(reason: "expected a stanza or the MAC line")
        }
        let encodedMAC = lines[index].dropFirst(4)
        guard encodedMAC.utf8.count == 43, let mac = AgeBase64.decode(encodedMAC), mac.count == Self.macSize else {
            throw .malformedHeader(reason: "the MAC is not 43 characters of canonical base64")
        }
        self.stanzas = stanzas
        self.mac = mac
        macInput = Array(bytes[..<(bytes.count - encodedMAC.utf8.count - 2)])
    }

    private static func parseStanza(_ lines: [String], at start: Int) throws(AgeError) -> (Stanza, Int) {
        guard lines[start].hasPrefix("-> ") else { throw .malformedHeader(reason: "a stanza without arguments") }
        let arguments = lines[start].dropFirst(3).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard arguments.allSatisfy({ !$0.isEmpty }) else { throw .malformedHeader(reason: "an empty stanza argument") }
        var body = ""
        var index = start + 1
        while true {
            guard index < lines.count else { throw .malformedHeader(reason: "a stanza without its final short line") }
            let line = lines[index]
            guard line.utf8.count <= columns, line.utf8.allSatisfy(AgeBase64.isAlphabet) else {
                throw .malformedHeader(reason: "a stanza body line that is not base64 of at most 64 columns")
            }
            body += line
            index += 1
            if line.utf8.count < columns { break }
        }
        guard let decoded = AgeBase64.decode(Substring(body)) else {
            throw .malformedHeader(reason: "a stanza body that is not canonical base64")
        }
        return (Stanza(arguments: arguments, body: decoded), index)
    }

    init(stanzas: [Stanza], mac: [UInt8], macInput: [UInt8]) {
        self.stanzas = stanzas
        self.mac = mac
        self.macInput = macInput
    }
}
