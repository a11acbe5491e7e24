import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus list`
struct ListCommand: ClientCommand {
    static let spec = CommandSpec(["list"], "the installed corpora")

    let context: ClientContext

    func run() -> Int32 {
        let items = client.installed()
        if console.json {
            console.emit(Listing(installed: items.map { c in
                .init(id: c.record.id, version: c.record.version.description, catalog: c.record.remote, bundled: c.record.bundled,
                      size: c.size, title: c.manifest?.title ?? "", documents: c.manifest?.documents ?? 0,
                      passages: c.manifest?.passages ?? 0, installed: c.record.installed)
            }))
            return 0
        }
        if items.isEmpty { console.info("nothing installed; see what is offered with: corpus catalog"); return 0 }
        for c in items {
            console.out("\(c.record.remote)/\(c.record.id) \(c.record.version)  \(TerminalText.sanitizeLine(c.manifest?.title ?? ""))  [\(ByteFormat.size(c.size))\(c.record.bundled ? ", bundled" : "")]")
        }
        return 0
    }

    /// `{"installed": [{"id", "version", "catalog", "bundled", "size", "title", "documents", "passages", "installed"}]}`
    struct Listing: Encodable {
        struct Corpus: Encodable {
            let id: String
            let version: String
            let catalog: String
            let bundled: Bool
            /// Bytes on disk.
            let size: Int64
            let title: String
            let documents: Int
            let passages: Int
            /// When it was installed (a `Timestamp`).
            let installed: String
        }

        let installed: [Corpus]
    }
}
