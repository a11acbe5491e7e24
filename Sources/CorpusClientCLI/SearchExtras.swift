import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine

/// `corpus search`'s time window, context budget and extractive answer: parsing and printing.
extension SearchCommand {
    /// `--since` / `--until`, each a day or a full UTC timestamp; nil without either.
    func timeWindow() throws -> TimeWindow? {
        var window = TimeWindow()
        for (option, endOfDay) in [(Self.since, false), (Self.until, true)] {
            guard let text = cmd.value(option) else { continue }
            guard let bound = TimeWindow.bound(text, endOfDay: endOfDay) else {
                throw UsageError.invalidValue(option: option.name, value: text, expected: "a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM:SSZ")
            }
            if endOfDay { window.until = bound } else { window.since = bound }
        }
        if let s = window.since, let u = window.until, s > u {
            throw UsageError.invalidValue(option: Self.until.name, value: cmd.value(Self.until) ?? "", expected: "at or after --since")
        }
        return window.since == nil && window.until == nil ? nil : window
    }

    /// `--budget TOKENS` and the WordPiece tokenizer to count with: `CORPUS_VOCAB`, else the
    /// vocabulary of an installed embedder model (a MiniLM corpus brings one).
    func contextBudget() throws -> (Int, ContextBudget)? {
        guard let n = cmd.int(Self.budget) else { return nil }
        let candidates = (ProcessInfo.processInfo.environment["CORPUS_VOCAB"].map { [$0] } ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: home.embedders)) ?? []).sorted().flatMap { id in
                ((try? FileManager.default.contentsOfDirectory(atPath: "\(home.embedders)/\(id)")) ?? []).sorted().map { "\(home.embedders)/\(id)/\($0)/vocab.txt" }
            }
        guard let vocab = candidates.first(where: FileIO.exists),
              let tokenizer = try? WordPieceTokenizer(vocabularyFile: URL(fileURLWithPath: vocab)) else {
            throw UsageError.invalidValue(option: Self.budget.name, value: String(n),
                                          expected: "usable without a WordPiece vocabulary: install a corpus embedded with all-MiniLM-L6-v2 (its model brings vocab.txt) or set CORPUS_VOCAB=FILE")
        }
        return (n, ContextBudget(tokenizer: tokenizer))
    }

    /// The context and answer after the hits, when asked for.
    func printExtras(_ response: SearchResponse) {
        if let context = response.context {
            console.out("")
            console.out("context: \(context.passages.count) passage\(context.passages.count == 1 ? "" : "s"), \(context.used) of \(context.budget) tokens")
            for (i, p) in context.passages.enumerated() {
                console.out("[\(i + 1)] \(TerminalText.sanitizeLine(p.corpus)): \(TerminalText.sanitizeLine(p.document))\(p.section.isEmpty ? "" : " › \(TerminalText.sanitizeLine(p.section))") (\(p.tokens) tokens\(p.trimmed ? ", trimmed" : ""))")
                console.out("    \(TerminalText.sanitizeLine(p.text))")
            }
        }
        if let answer = response.answer {
            console.out("")
            console.out(answer.isEmpty ? "answer: no sentence holds the question's words" : "answer:")
            for s in answer {
                console.out("  \(TerminalText.sanitizeLine(s.text)) [\(TerminalText.sanitizeLine(s.corpus)): \(TerminalText.sanitizeLine(s.document))\(s.section.isEmpty ? "" : " › \(TerminalText.sanitizeLine(s.section))")]")
            }
        }
    }
}
