import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus catalog [QUERY] [--language L] [--access free|entitled] [--offset N] [--limit N]`
///
/// Rows are printed as they are read, one listing part at a time (`CorpusClient.forEachOffered`):
/// the query, the filters and the page are applied as the listing streams by.
struct CatalogCommand: ClientCommand {
    static let language = Option.text("--language", "L", "only corpora in this language")
    static let access = Option.choice("--access", [Access.free, .entitled].map(\.rawValue), "only free or only entitled corpora")
    static let offset = Option.integer("--offset", "N", in: 0...1_000_000_000, "skip the first N corpora that match")
    static let limit = Option.integer("--limit", "N", in: 1...1_000_000_000, "list at most N corpora")
    static let spec = CommandSpec(["catalog"], "browse what the catalogs offer, with installed / locked / update-available state",
                                  positionals: .words("QUERY", count: 0...50), options: [language, access, offset, limit])
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        try await refreshCatalogsOrSay(browsing: true)
        let words = cmd.positionals.joined(separator: " ").lowercased().split(separator: " ").map(String.init)
        let language = cmd.value(Self.language)
        let access = cmd.choice(Self.access, as: Access.self)
        func matches(_ r: ListingRow) -> Bool {
            if let language, r.language != language { return false }
            if let access, r.access != access { return false }
            guard !words.isEmpty else { return true }
            let hay = "\(r.id) \(r.title) \(r.description)".lowercased()
            return words.allSatisfy { hay.contains($0) }
        }
        let installed = client.installed()
        let catalogIDs = try catalogIDsByRemote()
        let clash = try clashingIDs()
        var skip = cmd.int(Self.offset) ?? 0
        var left = cmd.int(Self.limit) ?? Int.max
        var shown = 0
        if console.json { console.emitFragment("{\"corpora\":[") }
        try client.forEachOffered { listed in
            let r = listed.row
            guard matches(r) else { return true }
            guard skip == 0 else { skip -= 1; return true }
            let have = installed.first { $0.record.remote == listed.remote && $0.record.id == r.id }
            let row = CatalogRow(remote: listed.remote, r, installed: have?.record.version,
                                 locked: client.isLocked(id: r.id, access: r.access, tier: r.tier, catalogID: catalogIDs[listed.remote]))
            if console.json {
                console.emitFragment((shown == 0 ? "" : ",") + JSONOutput.string(row))
            } else {
                print(row, r, name: clash.contains(r.id) ? "\(listed.remote)/\(r.id)" : r.id)
            }
            shown += 1
            left -= 1
            return left > 0
        }
        if console.json {
            console.emitFragment("]}\n")
        } else if shown == 0 {
            console.info("no corpora match")
        }
        return 0
    }

    private func print(_ row: CatalogRow, _ r: ListingRow, name: String) {
        var state: [String] = []
        if row.locked { state.append("locked (\(r.tier.map { "tier \($0)" } ?? "entitlement") needed)") }
        if let v = row.installedVersion {
            state.append(row.updateAvailable ? "installed \(v), update to \(r.version) available" : "installed")
        }
        if r.bundled { state.append("bundled") }
        console.out("\(name) \(r.version)  \(TerminalText.sanitizeLine(r.title))  [\(ByteFormat.size(r.size)), \(r.access.rawValue)\(state.isEmpty ? "" : "; " + state.joined(separator: "; "))]")
        if !r.description.isEmpty { console.out("    \(r.description)") }
    }

    /// Ids offered by more than one catalog, shown as `catalog/id`. Only with several remotes: a
    /// pass over their listings that keeps ids, not rows.
    private func clashingIDs() throws -> Set<String> {
        guard try client.config().remotes.count > 1 else { return [] }
        var first: [String: String] = [:]
        var clash = Set<String>()
        try client.forEachOffered { listed in
            if let remote = first[listed.row.id] {
                if remote != listed.remote { clash.insert(listed.row.id) }
            } else {
                first[listed.row.id] = listed.remote
            }
            return true
        }
        return clash
    }

    /// `{"corpora": [CatalogRow]}`: the shape the streamed pieces make.
    struct Listing: Encodable {
        let corpora: [CatalogRow]
    }
}
