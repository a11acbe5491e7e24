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

    enum CodingKeys: String, CodingKey {
        case name, url, mirrors
        case rootKey = "root_key"
        case rootVersion = "root_version"
    }

    public init(name: String, url: String, mirrors: [String] = [], rootKey: PublicKey, rootVersion: Int = 1) throws {
        do {
            try Identifier.validate(name, what: "remote name")
        } catch let FormatError.malformed(what, reason) {
            // What the user typed as a name, not something a publisher sent: a usage mistake.
            throw SyncError.invalidRemote(reason: "\(what) \(reason)")
        }
        for u in [url] + mirrors {
            guard let scheme = URLComponents(string: u)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                throw SyncError.invalidRemote(reason: "remote URL \(u) is not an http or https URL")
            }
        }
        self.name = name
        self.url = url
        self.mirrors = mirrors
        self.rootKey = rootKey.base64
        self.rootVersion = rootVersion
    }

    public func pinnedKey() throws -> PublicKey {
        do { return try PublicKey(base64Line: Substring(rootKey)) } catch let e as FormatError { throw SyncError.from(e) }
    }

    /// Origin first, then mirrors: the order downloads and catalog fetches fail over in.
    /// Only the origin may receive the bearer token.
    public var sources: [Source] {
        [Source(baseURL: url, isOrigin: true)] + mirrors.map { Source(baseURL: $0, isOrigin: false) }
    }
}

/// One base URL of a published tree.
public struct Source: Hashable, Sendable {
    public var baseURL: String
    /// True for the remote's own origin: the only source a bearer token is sent to.
    public var isOrigin: Bool

    public init(baseURL: String, isOrigin: Bool) {
        self.baseURL = baseURL
        self.isOrigin = isOrigin
    }

    /// The URL of a tree-relative path (already checked with `TreePath.isSafe`), percent-encoding
    /// anything outside RFC 3986's unreserved set and `/`.
    public func url(for path: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return (baseURL.hasSuffix("/") ? baseURL : baseURL + "/") + encoded
    }
}
