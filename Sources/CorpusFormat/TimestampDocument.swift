import Foundation

/// The freshness document (`timestamp.json`, signed by a timestamp key): it names the current
/// catalog version and its SHA-256 and expires in hours, so a frozen server or mirror can hold a
/// client on old content only until then (docs/format.md "Timestamp").
public struct TimestampDocument: Codable, Hashable, Sendable {
    public static let currentFormat = 1

    /// The signed catalog the timestamp vouches for.
    public struct CatalogRef: Codable, Hashable, Sendable {
        public var id: String
        public var version: Int
        public var path: String
        public var digest: SHA256Digest
        public var size: Int64

        enum CodingKeys: String, CodingKey {
            case id, version, path, size
            case digest = "sha256"
        }

        public init(id: String, version: Int, path: String, digest: SHA256Digest, size: Int64) {
            self.id = id
            self.version = version
            self.path = path
            self.digest = digest
            self.size = size
        }
    }

    public var format: Int
    /// Increases with every signing, including re-signings of the same catalog.
    public var version: Int
    public var issued: String
    public var expires: String
    public var catalog: CatalogRef
    /// The top document of the same catalog version (`catalogs/<N>.top.json`), when the tree has
    /// one: clients that read parts fetch it instead of the flat catalog, which older clients
    /// still read (they ignore this field).
    public var top: TopRef?

    /// The signed top document a timestamp names: its path, SHA-256 and size, as a catalog names a
    /// bundle (`{"path","sha256","size"}`).
    public typealias TopRef = BundleRef

    public init(version: Int, issued: Date, expires: Date, catalog: CatalogRef, top: TopRef? = nil) {
        self.format = Self.currentFormat
        self.version = version
        self.issued = Timestamp.format(issued)
        self.expires = Timestamp.format(expires)
        self.catalog = catalog
        self.top = top
    }

    public var expiryDate: Date? { Timestamp.parse(expires) }

    public var trustedComment: String { "timestamp:\(version) catalog:\(catalog.id) version:\(catalog.version) expires:\(expires)" }

    /// Decodes and checks the fields a client relies on; a newer format says to update the client.
    public static func decode(_ data: Data, what: String = TreeLayout.timestamp) throws -> TimestampDocument {
        struct Peek: Decodable { let format: Int }
        let format = try CanonicalJSON.decode(Peek.self, from: data, what: what).format
        guard format == currentFormat else {
            throw FormatError.unsupported(what: what, reason: "timestamp format \(format); this client reads format \(currentFormat): update the client")
        }
        let doc = try CanonicalJSON.decode(TimestampDocument.self, from: data, what: what)
        try Identifier.validate(doc.catalog.id, what: "catalog id")
        guard doc.version >= 1, doc.catalog.version >= 1, doc.catalog.size > 0, doc.expiryDate != nil, Timestamp.parse(doc.issued) != nil else {
            throw FormatError.malformed(what: what, reason: "version, catalog version, size or dates out of range")
        }
        // A version without a flat catalog (over `Catalog.maxFlatBytes`) names its top document in
        // both places: a client of an earlier release then reads a format it refuses by name.
        let namesTop = doc.top.map { doc.catalog.path == $0.path && doc.catalog.digest == $0.digest && doc.catalog.size == $0.size } ?? false
        guard TreePath.isSafe(doc.catalog.path), doc.catalog.path == TreeLayout.catalogPath(version: doc.catalog.version) || namesTop else {
            throw FormatError.malformed(what: what, reason: "catalog path \(doc.catalog.path.debugDescription) is not catalogs/<version>.json")
        }
        if let top = doc.top, top.path != TreeLayout.topPath(version: doc.catalog.version) || top.size <= 0 {
            throw FormatError.malformed(what: what, reason: "top path \(top.path.debugDescription) is not catalogs/<version>.top.json")
        }
        return doc
    }
}
