import CorpusFormat
import Foundation

/// The remotes of `config.json`: catalog sources and the root keys pinned for them. No network:
/// the first fetch verifies against the pinned key.
struct RemoteRegistry: Sendable {
    let home: HomeLayout

    /// Pins a catalog's root key. Re-adding a remote with the key it has already (to change its
    /// URL or mirrors) is fine; another key is refused, as re-pinning needs `remote remove` first.
    func add(name: String, url: String, mirrors: [String], storage: [String] = [], trust: PublicKey) throws -> Remote {
        let remote = try Remote(name: name, url: url, mirrors: mirrors, storage: storage, rootKey: trust)
        guard name != HomeLayout.localRemote else { throw SyncError.reservedRemoteName(name) }
        var config = try ClientConfig.load(home)
        if let existing = config.remote(named: name), existing.rootKey != remote.rootKey {
            let pinned = (try? existing.pinnedKey().keyID.description) ?? "(unreadable)"
            throw SyncError.remotePinned(name: name, pinnedKeyID: pinned, givenKeyID: trust.keyID.description)
        }
        config.remotes.removeAll { $0.name == name }
        config.remotes.append(remote)
        try config.save(home)
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
