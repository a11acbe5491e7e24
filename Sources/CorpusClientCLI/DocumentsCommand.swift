import CorpusCLIKit
import CorpusFormat
import CorpusEngine

/// `corpus documents ID [--from PATH] [--remote NAME]`
struct DocumentsCommand: ClientCommand {
    static let from = Option.text("--from", "PATH", "start the listing at this document (a listing's next)")
    static let remote = Option.text("--remote", "NAME", "list the documents on this remote's server instead of the installed corpus")
    static let spec = CommandSpec(["documents"], "list a corpus's documents and their sections, a page at a time",
                                  positionals: .exactly("ID").completing(.installedIDs), options: [from, remote])

    let context: ClientContext

    func run() async throws -> Int32 {
        let corpus = cmd.positionals[0]
        let listing = try await context.browser(remote: cmd.value(Self.remote)).documents(corpus: corpus, from: cmd.value(Self.from))
        if console.json {
            console.emit(listing)
            return 0
        }
        for d in listing.documents {
            let sections = d.sections.filter { !$0.title.isEmpty }.count
            let about = ["\(d.passages) passage\(d.passages == 1 ? "" : "s")", sections > 0 ? "\(sections) section\(sections == 1 ? "" : "s")" : nil,
                         d.group, d.time].compactMap { $0 }.joined(separator: ", ")
            console.out("\(TerminalText.sanitizeLine(d.path))  \(TerminalText.sanitizeLine(d.title))  (\(TerminalText.sanitizeLine(about)))")
        }
        if listing.documents.isEmpty { console.info("\(corpus) holds no documents") }
        if let next = listing.next {
            console.info("more: corpus documents \(corpus) --from \(TerminalText.sanitizeLine(next.debugDescription))")
        }
        return 0
    }
}
