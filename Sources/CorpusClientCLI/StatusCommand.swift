import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus status`
struct StatusCommand: ClientCommand {
    static let spec = CommandSpec(["status"], "catalog freshness, updates available, import-limit use")
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        let config = try client.config()
        var catalogs: [Result.CatalogState] = []
        // Updates are only judged for installed corpora, so a catalog of parts is read as `sync`
        // reads it: the top document and the paths to the installed entries, not the whole trie.
        for r in try await client.refreshCatalogs(wanted: []) {
            if let note = r.rootsPendingNote { console.err(note) }
            switch r.result {
            case let .success(update):
                catalogs.append(.init(name: r.remote.name, url: URLUserInfo.redacted(r.remote.url), version: update.catalog.version, expires: update.catalog.expires, fresh: true, error: nil))
            case let .failure(e):
                if case .offline = e { console.err("offline: \(cachedCatalogLine(r.remote.name) ?? "no catalog of \(r.remote.name) is held yet")") }
                let accepted = try? CatalogState(home: home).accepted(r.remote.name)
                catalogs.append(.init(name: r.remote.name, url: URLUserInfo.redacted(r.remote.url), version: accepted?.catalog.version, expires: accepted?.catalog.expires,
                                      fresh: false, error: e.description))
            }
        }
        for i in catalogs.indices {
            guard let remote = config.remote(named: catalogs[i].name), let root = try? TrustStore(home: home).currentRoot(for: remote) else { continue }
            catalogs[i].rootVersion = root.version
            catalogs[i].rootExpires = root.roles.expires.map(Timestamp.format)
            catalogs[i].timestampExpires = (try? CatalogState(home: home).acceptedTimestamp(remote.name))??.document.expires
            catalogs[i].warning = root.expiryWarning()
        }
        let offers = try client.offered()
        let installed = client.installed()
        let updates = installed.compactMap { c -> Result.Update? in
            guard let o = offers.first(where: { $0.remote == c.record.remote && $0.entry.id == c.record.id }),
                  o.entry.version > c.record.version else { return nil }
            return .init(corpus: "\(c.record.remote)/\(c.record.id)", installed: c.record.version.description, available: o.entry.version.description)
        }
        let used = installed.filter { !$0.record.bundled }.count
        let limit = try client.importLimit()
        if console.json {
            console.emit(Result(home: home.root, catalogs: catalogs, installed: installed.count, updates: updates, importsUsed: used,
                                importLimit: Nullable(limit), token: client.token != nil))
            return 0
        }
        console.out("home: \(home.root)")
        if config.remotes.isEmpty { console.out("catalogs: none (corpus remote add NAME URL --trust KEY.pub)") }
        for c in catalogs {
            // Not only an outage: a refusal, or a log checkpoint not cosigned yet, also leaves the catalog as it was.
            let state = c.fresh ? "fresh" : (client.offline ? "not refreshed (offline mode)" : "not refreshed: \(c.error ?? "")")
            console.out("catalog \(c.name): version \(c.version.map { "\($0)" } ?? "none"), expires \(c.expires ?? "-"), \(state)")
            if let t = c.timestampExpires { console.out("  timestamp expires \(t)") }
            if let w = c.warning { console.err("warning: catalog \(c.name): \(w)") }
        }
        console.out("installed: \(installed.count) corpora; imports used \(used) of \(limit.map(String.init) ?? "unlimited") (bundled corpora do not count)")
        if updates.isEmpty { console.out("updates: none") }
        for u in updates { console.out("update available: \(u.corpus) \(u.installed) → \(u.available) (corpus sync)") }
        if let claims = client.claims {
            console.out("token: for \(claims.subject), expires \(Timestamp.format(claims.expiresAt))")
        }
        return 0
    }

    /// `{"home", "catalogs", "installed", "updates", "imports_used", "import_limit", "token"}` (docs/cli.md).
    struct Result: Encodable {
        struct CatalogState: Encodable {
            let name: String
            let url: String
            /// The version refreshed, or the one accepted earlier; left out when there is none.
            let version: Int?
            let expires: String?
            let fresh: Bool
            let error: String?
            /// The newest root accepted for the catalog, its expiry (roots with roles), the freshness
            /// document's expiry, and the warning shown weeks before the root expires.
            var rootVersion: Int? = nil
            var rootExpires: String? = nil
            var timestampExpires: String? = nil
            var warning: String? = nil

            enum CodingKeys: String, CodingKey {
                case name, url, version, expires, fresh, error, warning
                case rootVersion = "root_version"
                case rootExpires = "root_expires"
                case timestampExpires = "timestamp_expires"
            }
        }

        struct Update: Encodable {
            let corpus: String
            let installed: String
            let available: String
        }

        let home: String
        let catalogs: [CatalogState]
        let installed: Int
        let updates: [Update]
        let importsUsed: Int
        let importLimit: Nullable<Int>
        let token: Bool

        enum CodingKeys: String, CodingKey {
            case home, catalogs, installed, updates, token
            case importsUsed = "imports_used"
            case importLimit = "import_limit"
        }
    }
}
