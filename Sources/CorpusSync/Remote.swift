import CorpusFormat
import Foundation

/// A catalog source: where its tree is published, its mirrors, and the root key pinned for it.
public struct Remote: Codable, Hashable, Sendable {
    /// A valid id; names the remote's folders under `trust/`, `state/` and `corpora/`.
    public var name: String
    /// Base URL of the origin's published tree (the folder holding `catalog.json`).
    public var url: String
    /// Base URLs of untrusted mirrors, tried in order after the origin.
    public var mirrors: [String]
    /// The pinned root public key, as the bare base64 line of a minisign `.pub` file.
    public var rootKey: String
    /// The root key version the pinned key is (1 unless the user was handed a later one).
    public var rootVersion: Int
    /// The pinned root document, exactly as given (`remote add --trust ROOT.json`), when the remote
    /// was pinned by one rather than by a single key; `rootKey` is then its first root key, shown
    /// where a pin is named by one key id.
    public var rootDocument: String?
    /// Storage origins (`scheme://host[:port]`) the origin may redirect a request carrying the
    /// token to, such as the object store behind a gate-only `corpusd serve`. The redirect is
    /// followed without the token; to any other host it is refused.
    public var storage: [String]
    /// Witnesses whose cosignatures the log's checkpoint must carry (signed-note verifier keys of
    /// type 0x04, `remote add --witness`), and how many of them (`--witness-threshold`, default all).
    public var witnesses: [String] = []
    public var witnessThreshold: Int?
    /// The channel followed besides `stable` (`remote add --channel`, `sync --channel`); nil: `stable` only.
    public var channel: String?

    enum CodingKeys: String, CodingKey {
        case name, url, mirrors, storage, channel
        case rootKey = "root_key"
        case rootVersion = "root_version"
        case rootDocument = "root_document"
        case witnesses
        case witnessThreshold = "witness_threshold"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        url = try c.decode(String.self, forKey: .url)
        mirrors = try c.decode([String].self, forKey: .mirrors)
        rootKey = try c.decode(String.self, forKey: .rootKey)
        rootVersion = try c.decode(Int.self, forKey: .rootVersion)
        // Absent in configurations written before storage origins existed.
        storage = try c.decodeIfPresent([String].self, forKey: .storage) ?? []
        rootDocument = try c.decodeIfPresent(String.self, forKey: .rootDocument)
        witnesses = try c.decodeIfPresent([String].self, forKey: .witnesses) ?? []
        witnessThreshold = try c.decodeIfPresent(Int.self, forKey: .witnessThreshold)
        channel = try c.decodeIfPresent(String.self, forKey: .channel)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(url, forKey: .url)
        try c.encode(mirrors, forKey: .mirrors)
        try c.encode(rootKey, forKey: .rootKey)
        try c.encode(rootVersion, forKey: .rootVersion)
        // Written only when set, so a configuration without storage origins keeps its bytes.
        if !storage.isEmpty { try c.encode(storage, forKey: .storage) }
        try c.encodeIfPresent(rootDocument, forKey: .rootDocument)
        if !witnesses.isEmpty { try c.encode(witnesses, forKey: .witnesses) }
        try c.encodeIfPresent(witnessThreshold, forKey: .witnessThreshold)
        try c.encodeIfPresent(channel, forKey: .channel)
    }

    /// Requires `threshold` (default: every one) of `vkeys`' cosignatures on the log's checkpoint.
    /// Each must be a cosignature verifier key (`<name>+<key ID>+<base64(0x04 || key)>`).
    public mutating func requireWitnesses(_ vkeys: [String], threshold: Int?) throws {
        for vkey in vkeys {
            guard let verifier = try? NoteKeyName.verifier(vkey: vkey), verifier.signatureType == CosignatureVerifier.type else {
                throw SyncError.invalidRemote(reason: "--witness \(TerminalText.sanitizeLine(vkey)) is not a witness key (name+keyid+base64 of a cosignature key, "
                                              + "as corpusd witness prints it)")
            }
        }
        if let threshold, !(1...max(1, vkeys.count)).contains(threshold) || vkeys.isEmpty {
            throw SyncError.invalidRemote(reason: "--witness-threshold \(threshold) needs 1 to \(vkeys.count) --witness keys")
        }
        witnesses = vkeys
        witnessThreshold = vkeys.isEmpty ? nil : threshold
    }

    /// The witness keys and how many must cosign; nil when the remote requires none.
    public func witnessRequirement() throws -> (verifiers: [any NoteVerifier], threshold: Int)? {
        guard !witnesses.isEmpty else { return nil }
        do {
            return (try witnesses.map { try NoteKeyName.verifier(vkey: $0) }, witnessThreshold ?? witnesses.count)
        } catch {
            throw SyncError.localFileDamaged(path: "config.json", reason: "a witness key of remote \(name) does not parse: \(error)")
        }
    }

    public init(name: String, url: String, mirrors: [String] = [], storage: [String] = [], rootKey: PublicKey, rootVersion: Int = 1) throws {
        do {
            try Identifier.validate(name, what: "remote name")
        } catch let FormatError.malformed(what, reason) {
            // What the user typed as a name, not something a publisher sent: a usage mistake.
            throw SyncError.invalidRemote(reason: "\(what) \(reason)")
        }
        for u in [url] + mirrors + storage where URLUserInfo.isPresent(in: u) {
            // Refused, not stored: config.json, `remote list` and `status` would show the password.
            throw SyncError.invalidRemote(reason: "the URL \(URLUserInfo.redacted(u)) holds a user name or password; a catalog URL carries no credentials "
                                          + "(an entitlement goes in a token: --token, CORPUS_TOKEN or corpus login; a proxy's in https_proxy)")
        }
        for u in [url] + mirrors {
            guard let scheme = URLComponents(string: u)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw SyncError.invalidRemote(reason: "remote URL \(u) is not an http or https URL")
            }
        }
        var origins: [String] = []
        for s in storage {
            guard let o = RedirectPolicy.origin(of: s), o.scheme == "http" || o.scheme == "https",
                  let c = URLComponents(string: s), c.path.isEmpty || c.path == "/", c.query == nil, c.user == nil else {
                throw SyncError.invalidRemote(reason: "storage origin \(s) is not scheme://host[:port] of http or https")
            }
            origins.append(o.text)
        }
        self.name = name
        self.url = url
        self.mirrors = mirrors
        self.storage = origins
        self.rootKey = rootKey.base64
        self.rootVersion = rootVersion
    }

    /// What `channel` stores for a channel a user names: nil for `stable` (followed always), the
    /// name otherwise; a name that is not a valid id is refused as a usage mistake.
    public static func channelSetting(_ name: String?) throws -> String? {
        guard let name, name != ChannelRules.defaultChannel else { return nil }
        guard Identifier.isValid(name) else {
            throw SyncError.invalidRemote(reason: "channel \(name.debugDescription) is not a valid channel name (letters, digits, '-', '_', '.')")
        }
        return name
    }

    /// The canonical spelling of a storage origin (`http://host:port`), nil when `url` is none.
    public static func storageOrigin(_ url: String) -> String? { RedirectPolicy.origin(of: url)?.text }

    /// Pins `remote` to a root document instead of a single key: the document is the chain's start,
    /// trusted as given, as TUF clients trust the root they ship with.
    public mutating func pin(rootDocument json: Data) throws {
        let roles: RootRoles
        do { roles = try RootRoles.parse(json, what: "the root document given with --trust") } catch let e as FormatError { throw SyncError.from(e) }
        guard let first = roles.keys(for: .root).first, let text = String(data: json, encoding: .utf8) else {
            throw SyncError.malformed(what: "the root document given with --trust", reason: "no root key, or not UTF-8")
        }
        rootKey = first.base64
        rootVersion = roles.version
        rootDocument = text
    }

    /// The root the chain starts from: the pinned document, or the pinned key as a single-key root.
    public func pinnedRoot() throws -> TrustedRoot {
        guard let rootDocument else { return TrustedRoot(version: rootVersion, key: try pinnedKey()) }
        do {
            return TrustedRoot(roles: try RootRoles.parse(Data(rootDocument.utf8), what: "the pinned root of remote \(name)"))
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    public func pinnedKey() throws -> PublicKey {
        do { return try PublicKey(base64Line: Substring(rootKey)) } catch let e as FormatError { throw SyncError.from(e) }
    }

    /// Origin first, then mirrors: the order downloads and catalog fetches fail over in.
    /// Only the origin may receive the bearer token.
    public var sources: [Source] {
        [Source(baseURL: url, isOrigin: true, storageOrigins: storage)] + mirrors.map { Source(baseURL: $0, isOrigin: false) }
    }
}

/// One base URL of a published tree.
public struct Source: Hashable, Sendable {
    public var baseURL: String
    /// True for the remote's own origin: the only source a bearer token is sent to.
    public var isOrigin: Bool
    /// Where the origin may redirect a request carrying the token (`Remote.storage`).
    public var storageOrigins: [String]

    public init(baseURL: String, isOrigin: Bool, storageOrigins: [String] = []) {
        self.baseURL = baseURL
        self.isOrigin = isOrigin
        self.storageOrigins = storageOrigins
    }

    /// The URL of a tree-relative path (already checked with `TreePath.isSafe`), percent-encoding
    /// anything outside RFC 3986's unreserved set and `/`.
    public func url(for path: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return (baseURL.hasSuffix("/") ? baseURL : baseURL + "/") + encoded
    }
}
