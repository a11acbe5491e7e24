import Foundation

/// C2SP tlog-cosignature, Ed25519 (signature type 0x04): a witness's timestamped statement that
/// the checkpoint is the largest consistent tree head it has seen for the log.
///
/// The signature is `u64 timestamp (big-endian) || Ed25519 signature` over
/// `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's note text.
public enum Cosignature {
    public static let signatureSize = 8 + Ed25519.signatureSize
    /// Timestamps above 2^63 - 1 are refused by the spec.
    public static let maxTimestamp = UInt64(Int64.max)

    /// The message a cosigner signs for a checkpoint text at `timestamp`.
    public static func message(text: [UInt8], timestamp: UInt64) -> [UInt8] {
        Array("cosignature/v1\ntime \(timestamp)\n".utf8) + text
    }

    /// The timestamp of a cosignature's bytes (nil when they are not one).
    public static func timestamp(of signature: [UInt8]) -> UInt64? {
        guard signature.count == signatureSize else { return nil }
        let t = signature[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return t <= maxTimestamp ? t : nil
    }
}

public struct CosignatureVerifier: Ed25519KeyedVerifier {
    public static let type: UInt8 = 0x04
    public let key: Ed25519NoteKey

    public init(keyName: String, publicKey: [UInt8]) throws {
        key = try Ed25519NoteKey(keyName: keyName, publicKey: publicKey, signatureType: Self.type)
    }

    public func verify(text: [UInt8], signature: [UInt8]) -> Bool {
        guard let timestamp = Cosignature.timestamp(of: signature) else { return false }
        return Ed25519.verify(signature: Array(signature[8...]), message: Cosignature.message(text: text, timestamp: timestamp), publicKey: publicKey)
    }
}

/// A witness's cosigning key. Each signature carries the timestamp it was made with.
public struct CosignatureSigner: NoteSigner, Sendable {
    public let keyName: String
    public let verifier: CosignatureVerifier
    /// Seconds since the Epoch written into the next signature.
    public var timestamp: UInt64
    private let seed: [UInt8]
    public var keyID: UInt32 { verifier.keyID }

    public init(keyName: String, seed: [UInt8], timestamp: UInt64) throws {
        guard timestamp <= Cosignature.maxTimestamp else { throw TransparencyLogError.malformedKey(reason: "a cosignature timestamp is at most 2^63 - 1") }
        verifier = try CosignatureVerifier(keyName: keyName, publicKey: try Ed25519.publicKey(seed: seed))
        self.keyName = keyName
        self.seed = seed
        self.timestamp = timestamp
    }

    public func sign(text: [UInt8]) throws -> [UInt8] {
        let t = timestamp
        let prefix = (0..<8).map { UInt8(t >> (56 - 8 * UInt64($0)) & 0xff) }
        return prefix + (try Ed25519.sign(Cosignature.message(text: text, timestamp: t), seed: seed))
    }
}
