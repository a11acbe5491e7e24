import Foundation

/// A root document of format 2 (`keys/root-<N>.json`): keys by role, with thresholds and an
/// expiry. Each signature is a separate minisign file, `keys/root-<N>.json.<KEYID>.minisig`
/// (docs/format.md "Root document").
public struct RootDocument: Codable, Hashable, Sendable {
    /// One role as written: the key ids that may sign for it and how many must.
    public struct RoleKeys: Codable, Hashable, Sendable {
        public var keys: [String]
        public var threshold: Int

        public init(keys: [String], threshold: Int) {
            self.keys = keys
            self.threshold = threshold
        }
    }

    public static let currentFormat = 2
    /// Online roles sign unattended with one key per run: a threshold above this for them is
    /// refused as the document is read, so no reader meets a catalog it cannot count.
    public static let onlineThresholdLimit = 1
    /// More keys than any ceremony needs; bounds the signature files a verifier fetches.
    public static let maxKeys = 32

    public var format: Int
    public var version: Int
    public var created: String
    public var expires: String
    /// Key id (16 upper-case hex digits) → the bare base64 line of its minisign `.pub` file.
    public var keys: [String: String]
    /// Role name → its key ids and threshold. Roles this build does not know are kept and ignored.
    public var roles: [String: RoleKeys]

    public init(version: Int, created: Date, expires: Date, roles: [RootRole: (keys: [PublicKey], threshold: Int)]) {
        self.format = Self.currentFormat
        self.version = version
        self.created = Timestamp.format(created)
        self.expires = Timestamp.format(expires)
        var keys: [String: String] = [:]
        var table: [String: RoleKeys] = [:]
        for (role, spec) in roles {
            for k in spec.keys { keys[k.keyID.description] = k.base64 }
            table[role.rawValue] = RoleKeys(keys: spec.keys.map(\.keyID.description), threshold: spec.threshold)
        }
        self.keys = keys
        self.roles = table
    }

    /// The trusted comment of one holder's signature.
    public static func trustedComment(version: Int, signer: KeyID) -> String { "root:\(version) signer:\(signer)" }

    /// Checks every field a verifier relies on and returns the roles; any failure is `malformed`.
    public func validated(what: String) throws -> RootRoles {
        func bad(_ reason: String) -> FormatError { .malformed(what: what, reason: reason) }
        guard format == Self.currentFormat else { throw bad("format \(format) read as \(Self.currentFormat)") }
        guard version >= 1 else { throw bad("version \(version) is below 1") }
        guard Timestamp.parse(created) != nil, let expiry = Timestamp.parse(expires) else { throw bad("created or expires is not a UTC time") }
        guard keys.count <= Self.maxKeys else { throw bad("\(keys.count) keys, more than \(Self.maxKeys)") }
        var parsed: [KeyID: PublicKey] = [:]
        for (id, line) in keys {
            let key: PublicKey
            do { key = try PublicKey(base64Line: Substring(line)) } catch { throw bad("key \(id) is not a minisign public key") }
            guard key.keyID.description == id else { throw bad("key \(id) holds the key of id \(key.keyID)") }
            parsed[key.keyID] = key
        }
        var table: [RootRole: RootRoles.Role] = [:]
        for role in RootRole.allCases {
            guard let spec = roles[role.rawValue] else { throw bad("no \(role.rawValue) role") }
            var ids: [KeyID] = []
            for id in spec.keys {
                guard let keyID = KeyID(id), keyID.description == id, parsed[keyID] != nil else { throw bad("the \(role.rawValue) role names key \(id), which keys does not list") }
                guard !ids.contains(keyID) else { throw bad("the \(role.rawValue) role names key \(id) twice") }
                ids.append(keyID)
            }
            guard spec.threshold >= 1, spec.threshold <= ids.count else {
                throw bad("the \(role.rawValue) role's threshold \(spec.threshold) is not between 1 and its \(ids.count) keys")
            }
            if role != .root, spec.threshold > Self.onlineThresholdLimit {
                throw FormatError.unsupported(what: what, reason: "the \(role.rawValue) role's threshold is \(spec.threshold); this client counts "
                                              + "one signature for online roles: update the client")
            }
            table[role] = RootRoles.Role(keyIDs: ids, threshold: spec.threshold)
        }
        for (name, spec) in roles where RootRole(rawValue: name) == nil {
            // A later role (the log's key): its names must still be keys of the document.
            for id in spec.keys where KeyID(id).flatMap({ parsed[$0] }) == nil { throw bad("the \(name) role names key \(id), which keys does not list") }
        }
        return RootRoles.checked(version: version, expires: expiry, keys: parsed, table: table)
    }
}
