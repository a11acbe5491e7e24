import CorpusFormat

/// A corpus as installed in the home folder.
public struct InstalledCorpusRecord: Hashable, Sendable {
    public var remote: String
    public var id: String
    public var version: CorpusVersion
    public var bundled: Bool

    public init(remote: String, id: String, version: CorpusVersion, bundled: Bool) {
        self.remote = remote
        self.id = id
        self.version = version
        self.bundled = bundled
    }

    /// "remote/id", the namespaced name used when ids clash across catalogs.
    public var qualifiedName: String { "\(remote)/\(id)" }
}

/// A corpus a catalog offers, with the remote it came from.
public struct OfferedCorpus: Hashable, Sendable {
    public var remote: String
    public var entry: CatalogEntry

    public init(remote: String, entry: CatalogEntry) {
        self.remote = remote
        self.entry = entry
    }
}

/// One line of a wanted-file: an id (optionally `remote/id`) and an optional pinned version.
public struct WantedCorpus: Hashable, Sendable, Decodable {
    public var id: String
    public var version: CorpusVersion?

    public init(id: String, version: CorpusVersion? = nil) {
        self.id = id
        self.version = version
    }

    /// The corpus `name` names, at its version if it has one.
    public init(_ name: VersionedName) {
        self.init(id: name.name, version: name.version)
    }

    /// Accepts `"id"`, `"id@1.2"` (`VersionedName.parse`) or `{"id": "...", "version": "..."}`; an
    /// entry without an id or with an `@` but no version throws `VersionedNameError`.
    public init(from decoder: Decoder) throws {
        if let c = try? decoder.singleValueContainer(), let text = try? c.decode(String.self) {
            self.init(try VersionedName.parse(text))
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let id = try c.decode(String.self, forKey: .id)
        guard !id.isEmpty else { throw VersionedNameError.missingID(text: id) }
        self.init(id: id, version: try c.decodeIfPresent(CorpusVersion.self, forKey: .version))
    }

    /// `id@version`, or the id alone.
    public var label: String { VersionedName(name: id, version: version).description }

    enum CodingKeys: String, CodingKey { case id, version }
}

/// What a sync decides for one corpus.
public enum SyncAction: Hashable, Sendable {
    case install(OfferedCorpus)
    case update(from: InstalledCorpusRecord, to: OfferedCorpus)
    case keep(InstalledCorpusRecord)
    case remove(InstalledCorpusRecord)
    case refuse(name: String, reason: SyncRefusal)

    public var name: String {
        switch self {
        case let .install(o): return "\(o.remote)/\(o.entry.id)"
        case let .update(from, _): return from.qualifiedName
        case let .keep(r), let .remove(r): return r.qualifiedName
        case let .refuse(name, _): return name
        }
    }
}

public enum SyncRefusal: Error, Hashable, Sendable {
    case notFound
    case ambiguous(candidates: [String])
    case versionNotOffered(CorpusVersion)
    case importLimit(used: Int, limit: Int)
}

/// Decides what a sync does, with no I/O: the same inputs always give the same plan,
/// which is what makes `corpus sync --wanted` idempotent and testable.
public struct SyncPlanner: Sendable {
    public var offered: [OfferedCorpus]
    public var installed: [InstalledCorpusRecord]
    public var importLimit: Int?
    /// Installed corpora (qualified names) whose manifest was signed by a key the newest root no
    /// longer lists for the catalog role: after a stolen online key is rotated, `sync` replaces
    /// such a corpus by the version its catalog offers even when that version is lower, so what a
    /// thief published ahead of the publisher does not stay installed.
    public var revoked: Set<String> = []
    /// Versions on a followed channel whose rollout has not reached this client
    /// (`ChannelSelection`): `install ID@VERSION` naming one installs it, the way a user-initiated
    /// check does in Sparkle.
    public var heldBack: [OfferedCorpus] = []

    public init(offered: [OfferedCorpus], installed: [InstalledCorpusRecord], importLimit: Int?) {
        self.offered = offered
        self.installed = installed
        self.importLimit = importLimit
    }

    /// Resolves a name (`id` or `remote/id`) against the catalogs.
    public func resolveOffer(_ name: String) -> Result<OfferedCorpus, SyncRefusal> {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        let matches = parts.count == 2
            ? offered.filter { $0.remote == parts[0] && $0.entry.id == parts[1] }
            : offered.filter { $0.entry.id == name }
        if matches.count == 1 { return .success(matches[0]) }
        if matches.isEmpty { return .failure(.notFound) }
        return .failure(.ambiguous(candidates: matches.map { "\($0.remote)/\($0.entry.id)" }.sorted()))
    }

    public func resolveInstalled(_ name: String) -> Result<InstalledCorpusRecord, SyncRefusal> {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        let matches = parts.count == 2
            ? installed.filter { $0.remote == parts[0] && $0.id == parts[1] }
            : installed.filter { $0.id == name }
        if matches.count == 1 { return .success(matches[0]) }
        if matches.isEmpty { return .failure(.notFound) }
        return .failure(.ambiguous(candidates: matches.map(\.qualifiedName).sorted()))
    }

    /// The entries of a wanted-file the catalogs cannot satisfy, in file order, each saying why:
    /// an id no catalog offers, a catalog prefix that names none of `remotes`, a name several
    /// catalogs offer, a pinned version that is neither offered nor installed.
    public func unresolved(_ wanted: [WantedCorpus], remotes: Set<String>) -> [String] {
        wanted.compactMap { w in
            let label = w.label
            switch resolveOffer(w.id) {
            case let .failure(.ambiguous(candidates)):
                return "\(label) (offered by several catalogs; use one of \(candidates.joined(separator: ", ")))"
            case .failure:
                let parts = w.id.split(separator: "/", maxSplits: 1).map(String.init)
                if parts.count == 2, !remotes.contains(parts[0]) { return "\(label) (no catalog is named \(parts[0]))" }
                return "\(label) (no catalog offers it)"
            case let .success(offer):
                guard let pin = w.version, pin != offer.entry.version,
                      !installed.contains(where: { $0.remote == offer.remote && $0.id == offer.entry.id && $0.version == pin }) else { return nil }
                return "\(label) (version \(pin) is not offered; \(offer.remote) offers \(offer.entry.version))"
            }
        }
    }

    /// Installed corpora newer than what is offered for them now: a sync keeps them (it never
    /// downgrades), and says so.
    public var keptNewer: [KeptNewerVersion] {
        installed.sorted { $0.qualifiedName < $1.qualifiedName }.compactMap { have in
            guard !revoked.contains(have.qualifiedName),
                  let offer = offered.first(where: { $0.remote == have.remote && $0.entry.id == have.id }),
                  offer.entry.version < have.version else { return nil }
            return KeptNewerVersion(name: have.qualifiedName, installed: have.version, offered: offer.entry.version, channel: offer.entry.channelName)
        }
    }

    /// Corpora that count against the import limit: every installed one that is not a bundled starter.
    public var importsUsed: Int { installed.filter { !$0.bundled }.count }

    /// Plans installing the named corpora (`install ID[@VERSION]...`).
    public func planInstall(_ wanted: [WantedCorpus]) -> [SyncAction] {
        var used = importsUsed
        var actions: [SyncAction] = []
        for w in wanted {
            var offer: OfferedCorpus
            switch resolveOffer(w.id) {
            case let .success(o): offer = o
            case let .failure(r): actions.append(.refuse(name: w.id, reason: r)); continue
            }
            if let pin = w.version, pin != offer.entry.version,
               let rolling = heldBack.first(where: { $0.remote == offer.remote && $0.entry.id == offer.entry.id && $0.entry.version == pin }) {
                offer = rolling
            }
            if let pin = w.version, pin != offer.entry.version {
                // A catalog offers one version per corpus; an older pin is kept if already installed.
                if let have = installed.first(where: { $0.remote == offer.remote && $0.id == offer.entry.id }), have.version == pin {
                    actions.append(.keep(have))
                } else {
                    actions.append(.refuse(name: w.id, reason: .versionNotOffered(pin)))
                }
                continue
            }
            if let have = installed.first(where: { $0.remote == offer.remote && $0.id == offer.entry.id }) {
                actions.append(have.version == offer.entry.version ? .keep(have) : .update(from: have, to: offer))
                continue
            }
            if !offer.entry.bundled, let limit = importLimit {
                if used >= limit {
                    actions.append(.refuse(name: w.id, reason: .importLimit(used: used, limit: limit)))
                    continue
                }
                used += 1
            }
            actions.append(.install(offer))
        }
        return actions
    }

    /// Plans `sync`: with a wanted list, install/update what it names (and remove unlisted ones
    /// when `prune`); without one, update every installed corpus its catalog has a newer version of.
    public func planSync(wanted: [WantedCorpus]?, prune: Bool) -> [SyncAction] {
        guard let wanted else {
            return installed.sorted { $0.qualifiedName < $1.qualifiedName }.map { have in
                guard let offer = offered.first(where: { $0.remote == have.remote && $0.entry.id == have.id }),
                      offer.entry.version > have.version || (revoked.contains(have.qualifiedName) && offer.entry.version != have.version)
                else { return .keep(have) }
                return .update(from: have, to: offer)
            }
        }
        var actions = planInstall(wanted)
        if prune {
            let kept = Set(actions.compactMap { a -> String? in
                switch a {
                case let .install(o): return "\(o.remote)/\(o.entry.id)"
                case let .update(from, _), let .keep(from): return from.qualifiedName
                default: return nil
                }
            })
            let refusedNames = Set(actions.compactMap { a -> String? in
                if case let .refuse(name, _) = a { return name }
                return nil
            })
            for have in installed.sorted(by: { $0.qualifiedName < $1.qualifiedName })
            where !kept.contains(have.qualifiedName) && !refusedNames.contains(have.id) && !refusedNames.contains(have.qualifiedName) {
                actions.append(.remove(have))
            }
        }
        return actions
    }
}
