import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus catalog [QUERY] [--language L] [--access free|entitled]`
struct CatalogCommand: ClientCommand {
    static let language = Option.text("--language", "L", "only corpora in this language")
    static let access = Option.choice("--access", [Access.free, .entitled].map(\.rawValue), "only free or only entitled corpora")
    static let spec = CommandSpec(["catalog"], "browse what the catalogs offer, with installed / locked / update-available state",
                                  positionals: .words("QUERY", count: 0...50), options: [language, access])
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        var offers = try await refreshedOffers()
        let words = cmd.positionals.joined(separator: " ").lowercased().split(separator: " ").map(String.init)
        if !words.isEmpty {
            offers = offers.filter { o in
                let hay = "\(o.entry.id) \(o.entry.title) \(o.entry.description)".lowercased()
                return words.allSatisfy { hay.contains($0) }
            }
        }
        if let lang = cmd.value(Self.language) { offers = offers.filter { $0.entry.language == lang } }
        if let access = cmd.choice(Self.access, as: Access.self) { offers = offers.filter { $0.entry.access == access } }
        let rows = try catalogRows(offers)
        if console.json { console.emit(Listing(corpora: rows)); return 0 }
        if rows.isEmpty { console.info("no corpora match"); return 0 }
        let clash = Dictionary(grouping: offers, by: { $0.entry.id }).filter { $0.value.count > 1 }.keys
        for (o, row) in zip(offers, rows) {
            let name = clash.contains(o.entry.id) ? "\(o.remote)/\(o.entry.id)" : o.entry.id
            var state: [String] = []
            if row.locked { state.append("locked (\(o.entry.tier.map { "tier \($0)" } ?? "entitlement") needed)") }
            if let v = row.installedVersion {
                state.append(row.updateAvailable ? "installed \(v), update to \(o.entry.version) available" : "installed")
            }
            if o.entry.bundled { state.append("bundled") }
            console.out("\(name) \(o.entry.version)  \(TerminalText.sanitizeLine(o.entry.title))  [\(ByteFormat.size(o.entry.bundle.size)), \(o.entry.access.rawValue)\(state.isEmpty ? "" : "; " + state.joined(separator: "; "))]")
            if !o.entry.description.isEmpty { console.out("    \(o.entry.description)") }
        }
        return 0
    }

    /// `{"corpora": [CatalogRow]}`
    struct Listing: Encodable {
        let corpora: [CatalogRow]
    }
}
