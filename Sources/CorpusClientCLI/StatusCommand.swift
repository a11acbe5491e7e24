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
        var catalogs: [[String: Any]] = []
        for r in try await client.refreshCatalogs() {
            var row: [String: Any] = ["name": r.remote.name, "url": r.remote.url]
            switch r.result {
            case let .success(update):
                row["version"] = update.catalog.version
                row["expires"] = update.catalog.expires
                row["fresh"] = true
            case let .failure(e):
                row["error"] = e.description
                row["fresh"] = false
                if let accepted = try? CatalogState(home: home).accepted(r.remote.name) {
                    row["version"] = accepted.catalog.version
                    row["expires"] = accepted.catalog.expires
                }
            }
            catalogs.append(row)
        }
        let offers = try client.offered()
        let installed = client.installed()
        let updates = installed.compactMap { c -> [String: Any]? in
            guard let o = offers.first(where: { $0.remote == c.record.remote && $0.entry.id == c.record.id }),
                  o.entry.version > c.record.version else { return nil }
            return ["corpus": "\(c.record.remote)/\(c.record.id)", "installed": c.record.version.description, "available": o.entry.version.description]
        }
        let used = installed.filter { !$0.record.bundled }.count
        let limit = try client.importLimit()
        if console.json {
            var obj: [String: Any] = ["home": home.root, "catalogs": catalogs, "installed": installed.count, "updates": updates,
                                      "imports_used": used, "token": client.token != nil]
            obj["import_limit"] = limit.map { $0 as Any } ?? NSNull()
            console.emit(obj)
            return 0
        }
        console.out("home: \(home.root)")
        if config.remotes.isEmpty { console.out("catalogs: none (corpus remote add NAME URL --trust KEY.pub)") }
        for c in catalogs {
            let state = (c["fresh"] as? Bool == true) ? "fresh" : "unreachable: \(c["error"] ?? "")"
            console.out("catalog \(c["name"]!): version \(c["version"].map { "\($0)" } ?? "none"), expires \(c["expires"].map { "\($0)" } ?? "-"), \(state)")
        }
        console.out("installed: \(installed.count) corpora; imports used \(used) of \(limit.map(String.init) ?? "unlimited") (bundled corpora do not count)")
        if updates.isEmpty { console.out("updates: none") }
        for u in updates { console.out("update available: \(u["corpus"]!) \(u["installed"]!) → \(u["available"]!) (corpus sync)") }
        if let claims = client.claims {
            console.out("token: for \(claims.subject), expires \(Timestamp.format(claims.expiresAt))")
        }
        return 0
    }
}
