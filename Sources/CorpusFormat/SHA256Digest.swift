import Foundation

/// A SHA-256 digest as every format writes it: exactly 64 lower-case hex digits.
///
/// Encoded as that hex string (so signed documents keep their bytes), and checked when decoded:
/// a manifest, catalog or embedder reference holding anything else (upper case, another length,
/// a path) is refused there, so no malformed digest exists past decoding, and a digest can name a
/// file (`bundles/<sha256>.corpus.zip`, `downloads/<sha256>.part`) without further checks.
public struct SHA256Digest: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The 64 lower-case hex digits.
    public let hex: String

    public static let byteCount = 32

    /// Nil unless `hex` is exactly 64 lower-case hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 2 * Self.byteCount, hex.utf8.allSatisfy(Hex.isLowerDigit) else { return nil }
        self.hex = hex
    }

    /// The digest of 32 raw bytes, as `Digest(.sha256).finalize()` returns them.
    public init(bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount, "a SHA-256 digest has 32 bytes, not \(bytes.count)")
        hex = Hex.encode(bytes)
    }

    /// True when `text` is exactly 64 lower-case hex digits.
    public static func isValid(_ text: String) -> Bool { SHA256Digest(hex: text) != nil }

    public var bytes: [UInt8] { Hex.decode(hex)! }

    /// The first `count` hex digits, for messages that abbreviate a digest.
    public func prefix(_ count: Int) -> Substring { hex.prefix(count) }

    public var description: String { hex }

    public static func < (a: SHA256Digest, b: SHA256Digest) -> Bool { a.hex < b.hex }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let digest = SHA256Digest(hex: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a SHA-256 digest (64 lower-case hex digits)")
        }
        self = digest
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

extension SHA256 {
    /// The SHA-256 of `data` as a digest value.
    public static func digest<D: ContiguousBytes>(_ data: D) -> SHA256Digest { SHA256Digest(bytes: hash(data)) }

    /// Hashes a file by streaming it; returns the digest value and the byte count.
    public static func digest(fileAt path: String) throws -> (digest: SHA256Digest, size: Int64) {
        let (bytes, size) = try hash(fileAt: path)
        return (SHA256Digest(bytes: bytes), size)
    }
}
