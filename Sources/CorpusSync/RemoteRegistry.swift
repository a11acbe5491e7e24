import CorpusFormat
import Foundation

/// What a remote is pinned to: one root key (a single-key tree, or the key a user was handed), or
/// a whole root document.
public enum TrustAnchor: Sendable, Hashable {
    case key(PublicKey)
    case rootDocument(Data)
}

/// The remotes of `config.json`: catalog sources and the root keys pinned for them. No network:
/// the first fetch verifies against the pinned key.
struct RemoteRegistry: Sendable {
    let home: HomeLayout

    /// Pins a catalog's root key. Re-adding a remote with the key it has already (to change its
    /// URL or mirrors) is fine; another key is refused, as re-pinning needs `remote remove` first.
    func add(name: String, url: String, mirrors: [String], storage: [String] = [], trust: TrustAnchor,
             witnesses: [String] = [], witnessThreshold: Int? = nil, channel: String? = nil) throws -> Remote {
        var remote: Remote
        switch trust {
        case let .key(key):
            remote = try Remote(name: name, url: url, mirrors: mirrors, storage: storage, rootKey: key)
        case let .rootDocument(json):
            // The first root key stands in until the document is pinned over it.
            let roles: RootRoles
            do { roles = try RootRoles.parse(json, what: "the root document given with --trust") } catch let e as FormatError { throw SyncError.from(e) }
            guard let first = roles.keys(for: .root).first else { throw SyncError.malformed(what: "the root document given with --trust", reason: "no root key") }
            remote = try Remote(name: name, url: url, mirrors: mirrors, storage: storage, rootKey: first)
            try remote.pin(rootDocument: json)
        }
        try remote.requireWitnesses(witnesses, threshold: witnessThreshold)
        remote.channel = channel
        guard name != HomeLayout.localRemote else { throw SyncError.reservedRemoteName(name) }
        var config = try ClientConfig.load(home)
        if let existing = config.remote(named: name), existing.rootKey != remote.rootKey || existing.rootDocument != remote.rootDocument {
            let pinned = (try? existing.pinnedKey().keyID.description) ?? "(unreadable)"
            throw SyncError.remotePinned(name: name, pinnedKeyID: pinned, givenKeyID: (try? remote.pinnedKey().keyID.description) ?? "(unreadable)")
        }
        config.remotes.removeAll { $0.name == name }
        config.remotes.append(remote)
        try config.save(home)
        // Made now, so the gate of an encrypted corpus can be asked without writing anything later.
        try DeviceIdentity.ensure(home)
        return remote
    }

    func remove(name: String) throws {
        var config = try ClientConfig.load(home)
        guard config.remote(named: name) != nil else { throw SyncError.notFound(file: "remote \(name)") }
        config.remotes.removeAll { $0.name == name }
        try config.save(home)
    }

    /// The configured remotes, refused as not found when there are none (nothing to fetch from).
    static func required(_ remotes: [Remote]) throws -> [Remote] {
        guard !remotes.isEmpty else {
            throw SyncError.notFound(file: "remote (none configured; add one with `corpus remote add NAME URL --trust KEY.pub`)")
        }
        return remotes
    }
}
