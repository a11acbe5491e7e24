import Foundation

/// The three jobs a key can have in a published tree (docs/format.md "Root document").
public enum RootRole: String, CaseIterable, Sendable, Hashable {
    /// Signs the next root document: offline keys, a threshold of holders.
    case root
    /// Signs catalog versions, bundle manifests, deltas and embedder artifacts: online.
    case catalog
    /// Signs the short-lived freshness document (`timestamp.json`): online, re-signed often.
    case timestamp
}

/// One root version of a tree as a verifier sees it, whatever the document's format: its keys by
/// role, thresholds and expiry.
///
/// Format 1 (`RootKeyDocument`) names one key, which holds every role with threshold 1 and never
/// expires. Format 2 (`RootDocument`) lists keys and roles. Parsing validates the document; it
/// does not check signatures (`RootLink` does).
public struct RootRoles: Sendable, Hashable {
    public static let readableFormats = 1...2

    /// The keys of one role and how many of them must sign.
    public struct Role: Sendable, Hashable {
        public let keyIDs: [KeyID]
        public let threshold: Int
    }

    public let version: Int
    public let format: Int
    /// nil for format 1, whose roots do not expire.
    public let expires: Date?
    public let keys: [KeyID: PublicKey]
    private let table: [RootRole: Role]

    /// The single-key root of format 1: `key` holds every role.
    public static func singleKey(_ key: PublicKey, version: Int) -> RootRoles {
        let role = Role(keyIDs: [key.keyID], threshold: 1)
        return RootRoles(version: version, format: 1, expires: nil, keys: [key.keyID: key],
                         table: Dictionary(uniqueKeysWithValues: RootRole.allCases.map { ($0, role) }))
    }

    private init(version: Int, format: Int, expires: Date?, keys: [KeyID: PublicKey], table: [RootRole: Role]) {
        self.version = version
        self.format = format
        self.expires = expires
        self.keys = keys
        self.table = table
    }

    public func role(_ role: RootRole) -> Role { table[role]! }

    /// The public keys of `role`, in the document's order.
    public func keys(for role: RootRole) -> [PublicKey] { self.role(role).keyIDs.compactMap { keys[$0] } }

    public func holds(_ keyID: KeyID, as role: RootRole) -> Bool { self.role(role).keyIDs.contains(keyID) }

    /// True when every key of `role` in `other` is also one here: nothing was revoked.
    public func keeps(_ role: RootRole, of other: RootRoles) -> Bool {
        Set(other.role(role).keyIDs).isSubset(of: Set(self.role(role).keyIDs))
    }

    /// True once `now` has reached the expiry (a format-1 root never expires).
    public func hasExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// Reads a root document of any readable format. A format this build does not know is
    /// `FormatError.unsupported` (the reader says to update the client), never a parse error.
    public static func parse(_ json: Data, what: String) throws -> RootRoles {
        struct Peek: Decodable { let format: Int }
        let format = try CanonicalJSON.decode(Peek.self, from: json, what: what).format
        guard readableFormats.contains(format) else {
            throw FormatError.unsupported(what: what, reason: "root document format \(format); this client reads formats "
                                          + "\(readableFormats.lowerBound) to \(readableFormats.upperBound): update the client")
        }
        if format == 1 {
            let doc = try CanonicalJSON.decode(RootKeyDocument.self, from: json, what: what)
            let key = try doc.publicKey()
            guard doc.version >= 1 else { throw FormatError.malformed(what: what, reason: "version \(doc.version) is below 1") }
            guard key.keyID.description == doc.keyID else { throw FormatError.malformed(what: what, reason: "key_id does not match the key") }
            return singleKey(key, version: doc.version)
        }
        let doc = try CanonicalJSON.decode(RootDocument.self, from: json, what: what)
        return try doc.validated(what: what)
    }

    /// Builds the roles of a format-2 document after `RootDocument.validated` checked its fields.
    static func checked(version: Int, expires: Date, keys: [KeyID: PublicKey], table: [RootRole: Role]) -> RootRoles {
        RootRoles(version: version, format: 2, expires: expires, keys: keys, table: table)
    }
}
