import Foundation
import CorpusFormat
import CorpusSync
import CorpusCLIKit

/// `corpus [--home DIR] --complete-ids catalog|installed`: the corpus ids a shell completion
/// offers, one per line, read from the home folder alone: the catalogs accepted earlier (already
/// verified when they were fetched) or the installed corpora. It never touches the network, takes
/// no lock and prints nothing when it cannot read (a completion must not print errors into a
/// command line being typed). Not in the command table: it is the generated completions' helper,
/// not a command for people.
enum CompletionIDs {
    static let word = "--complete-ids"

    /// The ids to print when `args` (without the program name) is this request; nil otherwise.
    static func answer(_ args: [String], environment: [String: String]) -> [String]? {
        var rest = args[...]
        var explicitHome: String?
        var kind: String?
        while let arg = rest.popFirst() {
            if arg == Option.home.name { explicitHome = rest.popFirst() }
            else if arg.hasPrefix(Option.home.name + "=") { explicitHome = String(arg.dropFirst(Option.home.name.count + 1)) }
            else if arg == word { kind = rest.popFirst() }
            else { return nil }
        }
        guard let kind else { return nil }
        let home = HomeLayout.resolve(explicit: explicitHome, environment: environment)
        switch kind {
        case "catalog": return catalogIDs(home)
        case "installed": return Array(Set(home.installedCorpora().map(\.id))).sorted()
        default: return []
        }
    }

    static func catalogIDs(_ home: HomeLayout) -> [String] {
        let remotes = (try? FileManager.default.contentsOfDirectory(atPath: "\(home.root)/state")) ?? []
        let state = CatalogState(home: home)
        var ids = Set<String>()
        for remote in remotes where Identifier.isValid(remote) {
            guard let accepted = try? state.accepted(remote) else { continue }
            ids.formUnion(accepted.catalog.corpora.map(\.id))
            // A listing held whole (`corpus catalog` read it) names every id; its parts are read one at a time.
            let cache = ListingCache(home: home, remote: remote)
            guard let listing = accepted.catalog.listing, let parts = cache.complete(listing) else { continue }
            for part in parts {
                guard let stored = cache.stored(part.part), let rows = try? ListingDocument.rows(stored: stored, ref: part) else { continue }
                ids.formUnion(rows.map(\.id))
            }
        }
        return ids.sorted()
    }
}
