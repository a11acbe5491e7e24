import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync

/// `corpus verify --log [--against CHECKPOINT]`: the outcome of `LogVerification`, one line per
/// thing checked (or `{"log": [...]}` with `--json`); exit 3 on the first refusal or fork.
struct LogVerifyReport {
    let context: ClientContext

    func run(against: String?) throws -> Int32 {
        let console = context.console
        var other: (path: String, bytes: [UInt8])?
        if let against {
            guard let data = FileManager.default.contents(atPath: against) else {
                throw SyncError.notFound(file: against)
            }
            other = (against, [UInt8](data))
        }
        let outcomes = try LogVerification.verify(home: context.home, remotes: try context.client.config().remotes, against: other)
        let first = outcomes.first { $0.error != nil }?.error
        if console.json {
            console.emit(Checked(log: outcomes.map { o in
                Checked.Entry(remote: o.remote, corpus: o.corpus, against: o.against, treeSize: o.treeSize, index: o.index, ok: o.error == nil,
                              note: o.note, error: o.error.map { ErrorBody(code: $0.code, message: $0.description, hint: ClientErrors.hint($0)) })
            }))
        } else {
            if outcomes.isEmpty { console.info("no log checkpoint accepted yet (corpus catalog fetches one from a tree with a log)") }
            for o in outcomes {
                let what = o.against.map { "\(o.remote) against \(TerminalText.sanitizeLine($0))" }
                    ?? (o.corpus.map { "\(o.remote)/\($0)" } ?? "\(o.remote) catalog")
                if let e = o.error {
                    console.err("FAILED \(what): \(e.description)")
                } else if let note = o.note {
                    console.info("undecided \(what): \(note)")
                } else {
                    console.info("ok \(what)" + (o.index.map { " (leaf \($0) of \(o.treeSize ?? 0))" } ?? (o.against != nil ? " (the same tree head)" : "")))
                }
            }
        }
        return ClientErrors.exitCode(firstRefusal: first)
    }

    /// `{"log": [{"remote", "corpus"?, "against"?, "tree_size"?, "index"?, "ok", "note"?, "error"?}]}`
    struct Checked: Encodable {
        struct Entry: Encodable {
            let remote: String
            let corpus: String?
            let against: String?
            let treeSize: UInt64?
            let index: UInt64?
            let ok: Bool
            let note: String?
            let error: ErrorBody?

            enum CodingKeys: String, CodingKey {
                case remote, corpus, against, index, ok, note, error
                case treeSize = "tree_size"
            }
        }

        let log: [Entry]
    }
}
