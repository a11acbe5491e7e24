import CorpusCLIKit
import CorpusFormat
import CorpusEngine

/// `corpus read ID DOCUMENT [--at PASSAGE | --from PASSAGE] [--all] [--remote NAME]`
struct ReadCommand: ClientCommand {
    static let at = Option.text("--at", "PASSAGE", "open the page that holds this passage (a search hit's), from its section's start")
    static let from = Option.text("--from", "PASSAGE", "start at this passage (a page's next)")
    static let all = Option.flag("--all", "read on to the document's end, page after page")
    static let remote = Option.text("--remote", "NAME", "read from this remote's server instead of the installed corpus")
    static let spec = CommandSpec(["read"], "a document's text in reading order, overlap removed, a page at a time",
                                  positionals: .exactly("ID", "DOCUMENT").completing(.installedIDs), options: [at, from, all, remote])

    let context: ClientContext

    func run() async throws -> Int32 {
        let (corpus, document) = (cmd.positionals[0], cmd.positionals[1])
        let browser = try context.browser(remote: cmd.value(Self.remote))
        var text = try await browser.read(corpus: corpus, document: document, at: cmd.value(Self.at), from: cmd.value(Self.from))
        while cmd.has(Self.all), let next = text.next {
            text.append(try await browser.read(corpus: corpus, document: document, at: nil, from: next))
        }
        if console.json {
            console.emit(text)
            return 0
        }
        console.out("# \(TerminalText.sanitizeLine(text.title))  [\(TerminalText.sanitizeLine(corpus)): \(TerminalText.sanitizeLine(text.document))]")
        for section in text.sections {
            console.out("")
            if !section.title.isEmpty { console.out("## \(TerminalText.sanitizeLine(section.title))\(section.continues == true ? " (continued)" : "")") }
            console.out(section.text)
        }
        if let next = text.next {
            console.info("")
            console.info("more: corpus read \(corpus) \(TerminalText.sanitizeLine(document.debugDescription)) --from \(TerminalText.sanitizeLine(next.debugDescription)) (or --all)")
        }
        return 0
    }
}
