import Foundation

/// minisign's key and signature file formats (https://jedisct1.github.io/minisign/).
///
/// Public key: `untrusted comment: …` then base64(`Ed` ‖ key id (8) ‖ public key (32)).
/// Signature: `untrusted comment: …`, base64(alg ‖ key id ‖ signature (64)),
/// `trusted comment: …`, base64(global signature (64)) where the global signature
/// covers signature ‖ trusted comment. `Ed` signs the message, `ED` signs its BLAKE2b-512.
public enum Minisign {
    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "
    static let maxCommentBytes = 1024
    static let maxTrustedCommentBytes = 8192

    /// Splits a minisign text file into its lines, tolerating CRLF and one trailing newline.
    static func lines(_ text: String, what: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        return lines
    }

    static func base64(_ line: Substring, what: String, count: Int) throws -> [UInt8] {
        guard let data = Data(base64Encoded: String(line)), data.count == count else {
            throw FormatError.malformed(what: what, reason: "expected \(count) bytes of base64")
        }
        return [UInt8](data)
    }

    static func comment(_ line: Substring, prefix: String, what: String, max: Int) throws -> String {
        guard line.hasPrefix(prefix) else {
            throw FormatError.malformed(what: what, reason: "expected a line starting with \"\(prefix)\"")
        }
        let text = String(line.dropFirst(prefix.count))
        guard text.utf8.count <= max else { throw FormatError.malformed(what: what, reason: "comment longer than \(max) bytes") }
        return text
    }
}

/// The 8-byte key number minisign puts in keys and signatures to say which key signed.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 8)
        self.bytes = bytes
    }

    public static func random() throws -> KeyID {
        KeyID(bytes: Array(try Ed25519.randomSeed().prefix(8)))
    }

    /// minisign prints the key number as a little-endian integer in upper-case hex.
    public var description: String {
        Hex.encode(bytes.reversed(), uppercase: true)
    }

    public init?(_ text: String) {
        guard text.count == 16, let raw = Hex.decode(text) else { return nil }
        self.init(bytes: raw.reversed())
    }

    /// minisign's own rendering, without leading zeros (`%" PRIX64 "`), used in default comments.
    var minisignRendering: String {
        let v = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(v, radix: 16, uppercase: true)
    }
}

/// A minisign public key: key id and Ed25519 public key.
public struct PublicKey: Hashable, Sendable {
    public let keyID: KeyID
    public let bytes: [UInt8]

    public init(keyID: KeyID, bytes: [UInt8]) {
        precondition(bytes.count == Ed25519.publicKeySize)
        self.keyID = keyID
        self.bytes = bytes
    }

    /// Parses either a whole `.pub` file or the bare base64 line (as `minisign -P` takes).
    public init(text: String) throws {
        let lines = Minisign.lines(text, what: "public key")
        let line: Substring
        switch lines.count {
        case 1: line = lines[0]
        case 2:
            _ = try Minisign.comment(lines[0], prefix: Minisign.untrustedPrefix, what: "public key", max: Minisign.maxCommentBytes)
            line = lines[1]
        default: throw FormatError.malformed(what: "public key", reason: "expected a comment line and a key line")
        }
        self = try PublicKey(base64Line: line)
    }

    public init(base64Line line: Substring) throws {
        let raw = try Minisign.base64(line, what: "public key", count: 42)
        guard raw[0] == UInt8(ascii: "E"), raw[1] == UInt8(ascii: "d") else {
            throw FormatError.unsupported(what: "public key", reason: "algorithm is not Ed25519")
        }
        self.init(keyID: KeyID(bytes: Array(raw[2..<10])), bytes: Array(raw[10..<42]))
    }

    public init(contentsOf path: String) throws {
        self = try PublicKey(text: try readText(path, what: "public key"))
    }

    /// The bare base64 line.
    public var base64: String {
        Data([UInt8(ascii: "E"), UInt8(ascii: "d")] + keyID.bytes + bytes).base64EncodedString()
    }

    /// The `.pub` file text.
    public var fileText: String {
        "\(Minisign.untrustedPrefix)minisign public key \(keyID.minisignRendering)\n\(base64)\n"
    }

    /// Verifies a signature over `message`, with a precise reason on refusal.
    public func verify(_ signature: Signature, message: UnsafeRawBufferPointer) throws {
        let signed: [UInt8]
        switch signature.algorithm {
        case .legacy: signed = Array(message)
        case .prehashed:
            let d = Digest(.blake2b512)
            d.update(message)
            signed = d.finalize()
        }
        try verify(signature, signedBytes: signed)
    }

    public func verify<D: ContiguousBytes>(_ signature: Signature, message: D) throws {
        try message.withUnsafeBytes { try verify(signature, message: $0) }
    }

    /// Verifies a signature over a file, streaming it when the signature is prehashed.
    public func verify(_ signature: Signature, fileAt path: String) throws {
        switch signature.algorithm {
        case .legacy:
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try verify(signature, message: data)
        case .prehashed:
            let d = Digest(.blake2b512)
            try FileHandleReader(path: path).forEachChunk { d.update($0) }
            try verify(signature, signedBytes: d.finalize())
        }
    }

    /// Checks key id, the signature over the (possibly prehashed) message, then the
    /// global signature over signature ‖ trusted comment. All three must hold.
    func verify(_ signature: Signature, signedBytes: [UInt8]) throws {
        guard signature.keyID == keyID else {
            throw FormatError.keyIDMismatch(expected: keyID.description, actual: signature.keyID.description)
        }
        guard Ed25519.verify(signature: signature.signature, message: signedBytes, publicKey: bytes) else {
            throw FormatError.signatureInvalid(what: "the signed file")
        }
        let global = signature.signature + Array(signature.trustedComment.utf8)
        guard Ed25519.verify(signature: signature.globalSignature, message: global, publicKey: bytes) else {
            throw FormatError.signatureInvalid(what: "the trusted comment")
        }
    }
}

/// A minisign secret key, stored unencrypted.
///
/// The file is minisign's own layout with KDF algorithm `\0\0` (what `minisign -G -W`
/// writes): `Ed` ‖ `\0\0` ‖ `B2` ‖ salt (32, zero) ‖ opslimit (8) ‖ memlimit (8) ‖
/// key id (8) ‖ seed (32) ‖ public key (32) ‖ checksum (32, zero as minisign -W writes it).
/// Encrypted (scrypt) keys are refused with a message saying how to make an unencrypted one.
public struct SecretKey: Sendable {
    public let keyID: KeyID
    let seed: [UInt8]
    public let publicKey: PublicKey

    public static func generate() throws -> SecretKey {
        try SecretKey(keyID: .random(), seed: Ed25519.randomSeed())
    }

    public init(keyID: KeyID, seed: [UInt8]) throws {
        self.keyID = keyID
        self.seed = seed
        self.publicKey = PublicKey(keyID: keyID, bytes: try Ed25519.publicKey(seed: seed))
    }

    public init(text: String) throws {
        let lines = Minisign.lines(text, what: "secret key")
        guard lines.count == 2 else { throw FormatError.malformed(what: "secret key", reason: "expected a comment line and a key line") }
        _ = try Minisign.comment(lines[0], prefix: Minisign.untrustedPrefix, what: "secret key", max: Minisign.maxCommentBytes)
        let raw = try Minisign.base64(lines[1], what: "secret key", count: 158)
        guard raw[0] == UInt8(ascii: "E"), raw[1] == UInt8(ascii: "d"), raw[4] == UInt8(ascii: "B"), raw[5] == UInt8(ascii: "2") else {
            throw FormatError.unsupported(what: "secret key", reason: "algorithm is not Ed25519 with BLAKE2b checksum")
        }
        guard raw[2] == 0, raw[3] == 0 else {
            throw FormatError.unsupported(what: "secret key", reason: "it is password-protected; create an unencrypted key with `corpusd keygen` or `minisign -G -W`")
        }
        let keyID = KeyID(bytes: Array(raw[54..<62]))
        let seed = Array(raw[62..<94])
        let storedPublic = Array(raw[94..<126])
        try self.init(keyID: keyID, seed: seed)
        // The seed determines the public key; a mismatch means the file was damaged.
        guard publicKey.bytes == storedPublic else {
            throw FormatError.malformed(what: "secret key", reason: "its public half does not match its seed")
        }
    }

    public init(contentsOf path: String) throws {
        self = try SecretKey(text: try readText(path, what: "secret key"))
    }

    public var fileText: String {
        var raw: [UInt8] = [UInt8(ascii: "E"), UInt8(ascii: "d"), 0, 0, UInt8(ascii: "B"), UInt8(ascii: "2")]
        raw += [UInt8](repeating: 0, count: 32 + 8 + 8)
        raw += keyID.bytes + seed + publicKey.bytes
        raw += [UInt8](repeating: 0, count: 32)
        return "\(Minisign.untrustedPrefix)minisign encrypted secret key\n\(Data(raw).base64EncodedString())\n"
    }

    /// Signs `message` in the prehashed (`ED`) form that minisign 0.10+ writes by default.
    public func sign(_ message: UnsafeRawBufferPointer, trustedComment: String,
                     untrustedComment: String = "signature from minisign secret key") throws -> Signature {
        let d = Digest(.blake2b512)
        d.update(message)
        return try sign(prehash: d.finalize(), trustedComment: trustedComment, untrustedComment: untrustedComment)
    }

    public func sign<D: ContiguousBytes>(_ message: D, trustedComment: String,
                                         untrustedComment: String = "signature from minisign secret key") throws -> Signature {
        try message.withUnsafeBytes { try sign($0, trustedComment: trustedComment, untrustedComment: untrustedComment) }
    }

    /// Signs a file by streaming it through BLAKE2b-512.
    public func sign(fileAt path: String, trustedComment: String,
                     untrustedComment: String = "signature from minisign secret key") throws -> Signature {
        let d = Digest(.blake2b512)
        try FileHandleReader(path: path).forEachChunk { d.update($0) }
        return try sign(prehash: d.finalize(), trustedComment: trustedComment, untrustedComment: untrustedComment)
    }

    /// Legacy (`Ed`) signature over the raw message, for interop tests and old verifiers.
    public func signLegacy<D: ContiguousBytes>(_ message: D, trustedComment: String) throws -> Signature {
        let sig = try Ed25519.sign(message, seed: seed)
        return try finish(.legacy, sig, trustedComment: trustedComment, untrustedComment: "signature from minisign secret key")
    }

    private func sign(prehash: [UInt8], trustedComment: String, untrustedComment: String) throws -> Signature {
        let sig = try Ed25519.sign(prehash, seed: seed)
        return try finish(.prehashed, sig, trustedComment: trustedComment, untrustedComment: untrustedComment)
    }

    private func finish(_ alg: Signature.Algorithm, _ sig: [UInt8], trustedComment: String, untrustedComment: String) throws -> Signature {
        guard !trustedComment.contains("\n"), !untrustedComment.contains("\n") else {
            throw FormatError.malformed(what: "signature comment", reason: "contains a line break")
        }
        let global = try Ed25519.sign(sig + Array(trustedComment.utf8), seed: seed)
        return Signature(algorithm: alg, keyID: keyID, signature: sig, untrustedComment: untrustedComment,
                         trustedComment: trustedComment, globalSignature: global)
    }
}

/// A minisign signature file.
public struct Signature: Hashable, Sendable {
    public enum Algorithm: Sendable {
        /// `Ed`: Ed25519 over the message itself.
        case legacy
        /// `ED`: Ed25519 over BLAKE2b-512 of the message.
        case prehashed
    }

    public let algorithm: Algorithm
    public let keyID: KeyID
    public let signature: [UInt8]
    public let untrustedComment: String
    public let trustedComment: String
    public let globalSignature: [UInt8]

    public init(algorithm: Algorithm, keyID: KeyID, signature: [UInt8], untrustedComment: String,
                trustedComment: String, globalSignature: [UInt8]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.signature = signature
        self.untrustedComment = untrustedComment
        self.trustedComment = trustedComment
        self.globalSignature = globalSignature
    }

    public init(text: String) throws {
        let lines = Minisign.lines(text, what: "signature")
        guard lines.count == 4 else { throw FormatError.malformed(what: "signature", reason: "expected 4 lines, found \(lines.count)") }
        let untrusted = try Minisign.comment(lines[0], prefix: Minisign.untrustedPrefix, what: "signature", max: Minisign.maxCommentBytes)
        let raw = try Minisign.base64(lines[1], what: "signature", count: 74)
        let alg: Algorithm
        switch (raw[0], raw[1]) {
        case (UInt8(ascii: "E"), UInt8(ascii: "d")): alg = .legacy
        case (UInt8(ascii: "E"), UInt8(ascii: "D")): alg = .prehashed
        default: throw FormatError.unsupported(what: "signature", reason: "unknown algorithm")
        }
        let trusted = try Minisign.comment(lines[2], prefix: Minisign.trustedPrefix, what: "signature", max: Minisign.maxTrustedCommentBytes)
        let global = try Minisign.base64(lines[3], what: "signature", count: 64)
        self.init(algorithm: alg, keyID: KeyID(bytes: Array(raw[2..<10])), signature: Array(raw[10..<74]),
                  untrustedComment: untrusted, trustedComment: trusted, globalSignature: global)
    }

    public init(contentsOf path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw FormatError.signatureMissing(file: path) }
        self = try Signature(text: try readText(path, what: "signature"))
    }

    public var fileText: String {
        let alg: [UInt8] = algorithm == .legacy ? [UInt8(ascii: "E"), UInt8(ascii: "d")] : [UInt8(ascii: "E"), UInt8(ascii: "D")]
        let line = Data(alg + keyID.bytes + signature).base64EncodedString()
        return "\(Minisign.untrustedPrefix)\(untrustedComment)\n\(line)\n\(Minisign.trustedPrefix)\(trustedComment)\n\(Data(globalSignature).base64EncodedString())\n"
    }
}

func readText(_ path: String, what: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw FormatError.io(operation: "read \(what)", path: path, errno: errno == 0 ? ENOENT : errno)
    }
    guard data.count <= 64 * 1024, let text = String(data: data, encoding: .utf8) else {
        throw FormatError.malformed(what: what, reason: "not a small UTF-8 text file")
    }
    return text
}
