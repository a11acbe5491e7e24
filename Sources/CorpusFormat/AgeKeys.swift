/// The 16-byte symmetric key of one age file (C2SP age, "File key"). Secret: its description
/// never shows the bytes.
public struct AgeFileKey: Sendable, Equatable, CustomStringConvertible {
    public static let size = 16
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(AgeError) {
        guard bytes.count == Self.size else { throw .malformedKey(what: "age file key", reason: "expected \(Self.size) bytes") }
        self.bytes = bytes
    }

    /// A fresh key from the platform's CSPRNG; one per file, never reused.
    public static func generate() throws(AgeError) -> AgeFileKey {
        try AgeFileKey(bytes: AgeError.wrapping { try PlatformCrypto.randomBytes(size) })
    }

    public var description: String { "AgeFileKey(redacted)" }
}

/// An age X25519 identity: a 32-byte scalar, written `AGE-SECRET-KEY-1…` (C2SP age, "The X25519
/// recipient type"). Secret: its description shows only the recipient.
public struct AgeX25519Identity: Sendable, Equatable, CustomStringConvertible {
    static let humanReadablePart = "AGE-SECRET-KEY-"
    let scalar: [UInt8]
    public let recipient: AgeX25519Recipient

    init(scalar: [UInt8]) throws(AgeError) {
        guard scalar.count == X25519.keySize else { throw .malformedKey(what: "age identity", reason: "expected 32 bytes") }
        self.scalar = scalar
        recipient = AgeX25519Recipient(publicKey: try AgeError.wrapping { try X25519.publicKey(privateKey: scalar) })
    }

    public static func generate() throws(AgeError) -> AgeX25519Identity {
        try AgeX25519Identity(scalar: AgeError.wrapping { try PlatformCrypto.randomBytes(X25519.keySize) })
    }

    /// Parses `AGE-SECRET-KEY-1…`, as `age-keygen` writes it (uppercase; lowercase is valid
    /// Bech32 too).
    public init(encoded text: String) throws(AgeError) {
        guard let (hrp, data) = Bech32.decode(text) else {
            throw .malformedKey(what: "age identity", reason: "not valid Bech32")
        }
        guard hrp == Self.humanReadablePart.lowercased() else {
            throw .malformedKey(what: "age identity", reason: "not an AGE-SECRET-KEY-1 string")
        }
        try self.init(scalar: data)
    }

    /// `AGE-SECRET-KEY-1…`: the text to write to an identity file (mode 600).
    public var encoded: String { Bech32.encode(humanReadablePart: Self.humanReadablePart, data: scalar) }

    public var description: String { "AgeX25519Identity(recipient: \(recipient.encoded))" }
}

/// An age X25519 recipient: a public key, written `age1…`.
public struct AgeX25519Recipient: Sendable, Equatable, Hashable, CustomStringConvertible {
    static let humanReadablePart = "age"
    public let publicKey: [UInt8]

    init(publicKey: [UInt8]) { self.publicKey = publicKey }

    public init(encoded text: String) throws(AgeError) {
        guard let (hrp, data) = Bech32.decode(text) else {
            throw .malformedKey(what: "age recipient", reason: "not valid Bech32")
        }
        guard hrp == Self.humanReadablePart, text.hasPrefix("age1") else {
            throw .malformedKey(what: "age recipient", reason: "not an age1 string")
        }
        guard data.count == X25519.keySize else { throw .malformedKey(what: "age recipient", reason: "expected 32 bytes") }
        publicKey = data
    }

    public var encoded: String { Bech32.encode(humanReadablePart: Self.humanReadablePart, data: publicKey) }
    public var description: String { encoded }
}
