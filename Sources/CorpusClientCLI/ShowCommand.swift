import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus show ID`
struct ShowCommand: ClientCommand {
    static let spec = CommandSpec(["show"], "everything about one corpus", positionals: .exactly("ID").completing(.catalogIDs))
    static let readsToken = true

    let context: ClientContext

    func run() async throws -> Int32 {
        // Only the entries of that id (in every catalog, for an ambiguous name) are read from a
        // catalog's parts: a listing read by `catalog` does not hold what `show` prints.
        let id = String(cmd.positionals[0].split(separator: "/").last ?? "")
        let offers = try await refreshedOffers(wanted: [String(id.split(separator: "@").first ?? "")])
        let planner = SyncPlanner(offered: offers, installed: client.installed().map(\.record.asRecord), importLimit: nil)
        let offer: OfferedCorpus
        switch planner.resolveOffer(cmd.positionals[0]) {
        case let .success(o): offer = o
        case let .failure(.ambiguous(c)):
            throw SyncError.ambiguousName(name: cmd.positionals[0], candidates: c)
        case .failure: throw SyncError.notFound(file: "corpus \(cmd.positionals[0])")
        }
        let row = try catalogRows([offer])[0]
        if console.json { console.emit(Shown(corpus: row)); return 0 }
        let e = offer.entry
        console.out("\(TerminalText.sanitizeLine(e.title)) (\(offer.remote)/\(e.id) \(e.version))")
        if !e.description.isEmpty { console.out(e.description) }
        console.out("  language \(e.language), license \(e.license.isEmpty ? "unspecified" : e.license)")
        console.out("  \(e.documents) documents, \(e.passages) passages, \(ByteFormat.size(e.bundle.size)), embedder \(e.embedder.id)")
        console.out("  access \(e.access.rawValue)\(e.tier.map { " (tier \($0))" } ?? "")\(e.bundled ? ", bundled starter corpus" : "")")
        console.out("  \(row.locked ? "locked: needs a token covering it (corpus login TOKEN)" : (row.installed ? "installed \(row.installedVersion ?? "")" : "not installed: corpus install \(e.id)"))")
        return 0
    }

    /// `{"corpus": CatalogRow}`
    struct Shown: Encodable {
        let corpus: CatalogRow
    }
}
