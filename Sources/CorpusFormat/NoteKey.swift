import Foundation

/// A key that signs a note's text (a log's key, a witness's cosigning key).
public protocol NoteSigner {
    var keyName: String { get }
    var keyID: UInt32 { get }
    func sign(text: [UInt8]) throws -> [UInt8]
}

/// A trusted key a note's signatures are checked against, found by key name and key ID.
public protocol NoteVerifier: Sendable {
    var keyName: String { get }
    var keyID: UInt32 { get }
    /// The signature type byte of the signed-note registry (0x01 Ed25519, 0x04 cosignature).
    var signatureType: UInt8 { get }
    var publicKey: [UInt8] { get }
    func verify(text: [UInt8], signature: [UInt8]) -> Bool
}

extension NoteVerifier {
    /// The verifier key `<name>+<hex key ID>+<base64(type || public key)>`.
    public var vkey: String {
        let hex = String(keyID, radix: 16)
        return "\(keyName)+\(String(repeating: "0", count: 8 - hex.count) + hex)+\(Data([signatureType] + publicKey).base64EncodedString())"
    }
}

/// Key names: non-empty, no Unicode space, no plus (the vkey separator).
public enum NoteKeyName {
    public static func check(_ name: String) throws {
        guard !name.isEmpty, !name.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0 == "+" || $0.value < 0x20 }) else {
            throw TransparencyLogError.malformedKey(reason: "a key name must be non-empty, without spaces or '+'")
        }
    }

    /// SHA-256(name || 0x0A || type || public key)[:4], big-endian: the key ID signed-note recommends
    /// and Ed25519 (0x01) and cosignature (0x04) keys must use.
    public static func keyID(name: String, signatureType: UInt8, publicKey: [UInt8]) -> UInt32 {
        let hash = SHA256.hash(Array(name.utf8) + [0x0a, signatureType] + publicKey)
        return UInt32(hash[0]) << 24 | UInt32(hash[1]) << 16 | UInt32(hash[2]) << 8 | UInt32(hash[3])
    }

    /// Checks a key name and a 32-byte Ed25519 public key; returns the key ID for `signatureType`.
    static func ed25519KeyID(name: String, publicKey: [UInt8], signatureType: UInt8) throws -> UInt32 {
        try check(name)
        guard publicKey.count == Ed25519.publicKeySize else { throw TransparencyLogError.malformedKey(reason: "an Ed25519 public key has 32 bytes") }
        return keyID(name: name, signatureType: signatureType, publicKey: publicKey)
    }

    /// Parses a vkey of a type this package verifies: Ed25519 (0x01) or an Ed25519 cosignature (0x04).
    public static func verifier(vkey: String) throws -> any NoteVerifier {
        // A name holds no '+', but base64 may: only the first two are separators.
        let parts = vkey.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count == 8, let id = UInt32(parts[1], radix: 16), parts[1] == parts[1].lowercased(),
              let decoded = Data(base64Encoded: String(parts[2])), decoded.count == 1 + Ed25519.publicKeySize else {
            throw TransparencyLogError.malformedKey(reason: "not a verifier key <name>+<8 hex digits>+<base64 of type and a 32-byte key>")
        }
        let name = String(parts[0])
        let raw = [UInt8](decoded)
        let verifier: any NoteVerifier
        switch raw[0] {
        case Ed25519NoteVerifier.type: verifier = try Ed25519NoteVerifier(keyName: name, publicKey: Array(raw[1...]))
        case CosignatureVerifier.type: verifier = try CosignatureVerifier(keyName: name, publicKey: Array(raw[1...]))
        default: throw TransparencyLogError.malformedKey(reason: "signature type 0x\(String(raw[0], radix: 16)) is not supported")
        }
        guard verifier.keyID == id else { throw TransparencyLogError.malformedKey(reason: "key ID \(parts[1]) does not match the key") }
        return verifier
    }
}

/// An Ed25519 public key under a key name, for one signature type: what the note verifiers of
/// type 0x01 and 0x04 hold (the same key under another type has another key ID).
public struct Ed25519NoteKey: Sendable {
    public let keyName: String
    public let publicKey: [UInt8]
    public let signatureType: UInt8
    public let keyID: UInt32

    public init(keyName: String, publicKey: [UInt8], signatureType: UInt8) throws {
        keyID = try NoteKeyName.ed25519KeyID(name: keyName, publicKey: publicKey, signatureType: signatureType)
        self.keyName = keyName
        self.publicKey = publicKey
        self.signatureType = signatureType
    }
}

/// A verifier over an `Ed25519NoteKey`: its name, ID and type are the key's.
public protocol Ed25519KeyedVerifier: NoteVerifier {
    var key: Ed25519NoteKey { get }
}

extension Ed25519KeyedVerifier {
    public var keyName: String { key.keyName }
    public var keyID: UInt32 { key.keyID }
    public var signatureType: UInt8 { key.signatureType }
    public var publicKey: [UInt8] { key.publicKey }
}

/// Signed-note Ed25519 (type 0x01): a plain RFC 8032 signature over the note text.
public struct Ed25519NoteVerifier: Ed25519KeyedVerifier {
    public static let type: UInt8 = 0x01
    public let key: Ed25519NoteKey

    public init(keyName: String, publicKey: [UInt8]) throws {
        key = try Ed25519NoteKey(keyName: keyName, publicKey: publicKey, signatureType: Self.type)
    }

    public func verify(text: [UInt8], signature: [UInt8]) -> Bool {
        Ed25519.verify(signature: signature, message: text, publicKey: publicKey)
    }
}

/// Signs notes with an Ed25519 seed (the log's checkpoint key). The seed never leaves this value.
public struct Ed25519NoteSigner: NoteSigner, Sendable {
    public let keyName: String
    public let verifier: Ed25519NoteVerifier
    private let seed: [UInt8]
    public var keyID: UInt32 { verifier.keyID }

    public init(keyName: String, seed: [UInt8]) throws {
        verifier = try Ed25519NoteVerifier(keyName: keyName, publicKey: try Ed25519.publicKey(seed: seed))
        self.keyName = keyName
        self.seed = seed
    }

    public func sign(text: [UInt8]) throws -> [UInt8] { try Ed25519.sign(text, seed: seed) }
}
