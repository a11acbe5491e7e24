import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus remove ID...`
struct RemoveCommand: ClientCommand {
    static let spec = CommandSpec(["remove"], "remove installed corpora", positionals: .oneOrMore("ID").completing(.installedIDs))

    let context: ClientContext

    func run() throws -> Int32 {
        var first: Error?
        var removed: [String] = []
        for name in cmd.positionals {
            do {
                let r = try client.remove(name)
                removed.append(r.qualifiedName)
                console.info("removed \(r.qualifiedName) \(r.version) (run corpus gc to free its space)")
            } catch {
                if first == nil { first = error }
                if !console.json { _ = console.refuse(ClientErrors.report(error)) }
            }
        }
        if console.json {
            console.emit(Removed(removed: removed, error: first.map { ErrorBody(ClientErrors.report($0)) }))
        }
        return ClientErrors.exitCode(firstRefusal: first)
    }

    /// `{"removed": ["main/x"], "error"?: {…}}`: what was removed, and the first refusal.
    struct Removed: Encodable {
        let removed: [String]
        let error: ErrorBody?
    }
}
