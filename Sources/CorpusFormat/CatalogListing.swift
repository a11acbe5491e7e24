import Foundation

/// What `corpus catalog` shows of one catalog entry: its display fields, and the few fields that
/// pick the version a client is offered (channel, rollout) and its state (access, tier). No
/// hashes or paths: those live in the trie's leaves, read only for what a client installs.
public struct ListingRow: Codable, Hashable, Sendable {
    public var id: String
    public var version: CorpusVersion
    public var title: String
    public var description: String
    public var language: String
    public var license: String
    public var access: Access
    public var tier: String?
    public var bundled: Bool
    /// The bundle's size in bytes.
    public var size: Int64
    public var documents: Int
    public var passages: Int
    public var channel: String?
    public var rollout: Rollout?

    public init(_ e: CatalogEntry) {
        id = e.id
        version = e.version
        title = e.title
        description = e.description
        language = e.language
        license = e.license
        access = e.access
        tier = e.tier
        bundled = e.bundled
        size = e.bundle.size
        documents = e.documents
        passages = e.passages
        channel = e.channel
        rollout = e.rollout
    }

    /// The bytes of `e`'s row's free text, what can make a row long (the rest is a few dozen
    /// bytes), counted from the entry without making the row.
    public static func textBytes(of e: CatalogEntry) -> Int {
        e.id.utf8.count + e.title.utf8.count + e.description.utf8.count + e.language.utf8.count + e.license.utf8.count + (e.tier?.utf8.count ?? 0)
    }
}

/// The top document's reference to a catalog's listing: how many rows, and the listing index
/// part that names the listing parts in order (docs/format.md "Listing parts").
public struct CatalogListing: Codable, Hashable, Sendable {
    /// Rows in all the listing parts: the catalog's entries.
    public var count: Int
    public var index: PartRef

    public init(count: Int, index: PartRef) {
        self.count = count
        self.index = index
    }
}

/// A listing index's reference to one listing part: the part, and how many rows it holds (so a
/// page further on skips a part without inflating it).
public struct ListingPartRef: Codable, Hashable, Sendable {
    public var part: PartRef
    public var rows: Int

    enum CodingKeys: String, CodingKey {
        case rows, size
        case digest = "sha256"
    }

    public init(part: PartRef, rows: Int) {
        self.part = part
        self.rows = rows
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        part = PartRef(digest: try c.decode(SHA256Digest.self, forKey: .digest), size: try c.decode(Int64.self, forKey: .size))
        rows = try c.decode(Int.self, forKey: .rows)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(part.digest, forKey: .digest)
        try c.encode(part.size, forKey: .size)
        try c.encode(rows, forKey: .rows)
    }
}

/// A listing index (`"kind":"listing-index"`) or a listing part (`"kind":"listing"`), decoded.
public struct ListingDocument: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case index = "listing-index"
        case part = "listing"
    }

    public var kind: Kind
    /// Index only: the listing parts in catalog order.
    public var parts: [ListingPartRef]?
    /// Part only: its rows in catalog order.
    public var rows: [ListingRow]?

    public static func index(_ parts: [ListingPartRef]) -> ListingDocument { ListingDocument(kind: .index, parts: parts, rows: nil) }
    public static func part(_ rows: [ListingRow]) -> ListingDocument { ListingDocument(kind: .part, parts: nil, rows: rows) }

    /// The stored bytes: canonical JSON, gzip-compressed, like a trie part.
    public func stored() throws -> Data { try Gzip.compress(try CanonicalJSON.encode(self)) }

    /// The listing index `ref` names, checked as a trie part is (`CatalogPartWalk`): size and
    /// SHA-256 of the stored bytes first, then one gzip member of canonical JSON of this kind.
    public static func index(stored: Data, ref: PartRef) throws -> [ListingPartRef] {
        let doc = try read(stored, ref: ref, kind: .index)
        guard let parts = doc.parts, doc.rows == nil else { throw FormatError.malformed(what: ref.path, reason: "a listing index without parts") }
        for p in parts where p.rows < 1 || p.part.size < 1 {
            throw FormatError.malformed(what: ref.path, reason: "a listing part of \(p.rows) rows and \(p.part.size) bytes")
        }
        return parts
    }

    /// The rows of the listing part `ref` names, which must be as many as its index says.
    public static func rows(stored: Data, ref: ListingPartRef) throws -> [ListingRow] {
        let what = ref.part.path
        let doc = try read(stored, ref: ref.part, kind: .part)
        guard let rows = doc.rows, doc.parts == nil else { throw FormatError.malformed(what: what, reason: "a listing part without rows") }
        guard rows.count == ref.rows else { throw FormatError.malformed(what: what, reason: "\(rows.count) rows, its index says \(ref.rows)") }
        for r in rows { try Identifier.validate(r.id, what: "corpus id") }
        return rows
    }

    private static func read(_ stored: Data, ref: PartRef, kind: Kind) throws -> ListingDocument {
        let what = ref.path
        guard Int64(stored.count) == ref.size else { throw FormatError.sizeMismatch(member: what, expected: ref.size, actual: Int64(stored.count)) }
        let digest = SHA256.digest(stored)
        guard digest == ref.digest else { throw FormatError.hashMismatch(member: what, expected: ref.digest.hex, actual: digest.hex) }
        let json = try Gzip.decompress(stored, limit: CatalogPart.maxDecodedBytes, what: what)
        let doc = try CanonicalJSON.decode(ListingDocument.self, from: json, what: what)
        guard doc.kind == kind else { throw FormatError.malformed(what: what, reason: "a \(doc.kind.rawValue) where the listing has a \(kind.rawValue)") }
        return doc
    }
}
