import Foundation

/// What one leaf of a publisher's transparency log says: "this tree signed this document at this
/// version, and its bytes hash to this" (docs/format.md "Transparency log").
///
/// Encoded as four newline-terminated lines, so a person reading an entry bundle sees what it is:
///
///     corpussync-log-leaf/v1
///     catalog <catalog id>
///     version <N>
///     sha256 <64 lower-case hex digits of the signed document's bytes as served>
public struct LogLeaf: Equatable, Sendable {
    public static let header = "corpussync-log-leaf/v1"

    /// The kind of signed document; a new kind is a new first word on the second line, never a
    /// change to this encoding.
    public enum Kind: String, Sendable, CaseIterable {
        case catalog
        /// A root document version of the tree (`keys/root-<N>.json` as served); the id is the catalog's.
        case root
        /// The signed top document of a catalog version whose entries live in parts
        /// (`catalogs/<N>.top.json` as served): what clients of parts accept, logged beside the
        /// flat catalog that older clients read. One of each per version; a second leaf of either
        /// kind for one version is a second history.
        case top
    }

    public let kind: Kind
    public let id: String
    public let version: Int
    public let sha256: SHA256Digest

    public init(kind: Kind, id: String, version: Int, sha256: SHA256Digest) throws {
        guard Identifier.isValid(id) else { throw TransparencyLogError.malformedLeaf(reason: "\(TerminalText.sanitizeLine(id)) is not an id") }
        guard version >= 0 else { throw TransparencyLogError.malformedLeaf(reason: "the version must not be negative") }
        self.kind = kind
        self.id = id
        self.version = version
        self.sha256 = sha256
    }

    /// The leaf of the catalog document `bytes` (the signed `catalogs/<N>.json` as served).
    public init(catalogID: String, version: Int, documentBytes bytes: [UInt8]) throws {
        try self.init(kind: .catalog, id: catalogID, version: version, sha256: SHA256.digest(bytes))
    }

    /// The leaf of the top document `bytes` (the signed `catalogs/<N>.top.json` as served).
    public init(catalogID: String, version: Int, topDocumentBytes bytes: [UInt8]) throws {
        try self.init(kind: .top, id: catalogID, version: version, sha256: SHA256.digest(bytes))
    }

    /// The leaf a client looks for after accepting `bytes` as catalog `version`: the top
    /// document's when the catalog came as one (`isTop`), else the flat catalog's.
    public init(accepted bytes: [UInt8], catalogID: String, version: Int, isTop: Bool) throws {
        try self.init(kind: isTop ? .top : .catalog, id: catalogID, version: version, sha256: SHA256.digest(bytes))
    }

    /// Whether this leaf records a catalog version (flat or top document), not a root.
    public var isCatalogVersion: Bool { kind != .root }

    /// The leaf of the root document `bytes` (`keys/root-<N>.json` as served) of the tree of `catalogID`.
    public init(catalogID: String, rootVersion: Int, documentBytes bytes: [UInt8]) throws {
        try self.init(kind: .root, id: catalogID, version: rootVersion, sha256: SHA256.digest(bytes))
    }

    public var bytes: [UInt8] {
        Array("\(Self.header)\n\(kind.rawValue) \(id)\nversion \(version)\nsha256 \(sha256.hex)\n".utf8)
    }

    public init(bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard Array(text.utf8) == bytes, text.hasSuffix("\n"), lines.count == 5, lines[0] == Self.header else {
            throw TransparencyLogError.malformedLeaf(reason: "not four lines starting with \(Self.header)")
        }
        let kindLine = lines[1].split(separator: " ", maxSplits: 1).map(String.init)
        guard kindLine.count == 2, let kind = Kind(rawValue: kindLine[0]) else { throw TransparencyLogError.malformedLeaf(reason: "unknown document kind") }
        guard lines[2].hasPrefix("version "), let version = Int(lines[2].dropFirst(8)), String(version) == lines[2].dropFirst(8) else {
            throw TransparencyLogError.malformedLeaf(reason: "the version is not a decimal number")
        }
        guard lines[3].hasPrefix("sha256 "), let digest = SHA256Digest(hex: String(lines[3].dropFirst(7))) else {
            throw TransparencyLogError.malformedLeaf(reason: "the digest is not 64 lower-case hex digits")
        }
        try self.init(kind: kind, id: kindLine[1], version: version, sha256: digest)
        guard self.bytes == bytes else { throw TransparencyLogError.malformedLeaf(reason: "not in canonical form") }
    }
}
