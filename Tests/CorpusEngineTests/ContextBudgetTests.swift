import Foundation
import Testing
import CorpusTestSupport
@testable import CorpusEngine

/// `ContextBudget` (passages in rank order, trimmed at sentence boundaries, WordPiece-counted) and
/// `ExtractiveAnswer`.
@Suite struct ContextBudgetTests {
    /// A small real vocabulary: every word of the texts below, whole.
    static let tokenizer: WordPieceTokenizer = {
        let words = "[PAD] [UNK] [CLS] [SEP] [MASK] . , ; the keeper rotates lamp every night tide turns oils gear first a b c d e f g h one two three four five six seven eight nine ten"
        return try! WordPieceTokenizer(vocabulary: words.split(separator: " ").map(String.init))
    }()

    static func hit(_ n: Int, _ text: String) -> Hit {
        Hit(corpus: "c", remote: "local", version: "1", passageID: "p\(n)", document: "d\(n).md", documentTitle: "D", section: "S\(n)",
            text: text, snippet: "", score: 1, lexicalRank: n, vectorRank: nil)
    }

    @Test func sentencesSplitAtEndMarksAndBlankLinesOnly() {
        #expect(Sentences.split("One two. Three four! Five? \"Six.\" Seven\n\nEight 3.14 nine") ==
                ["One two.", "Three four!", "Five?", "\"Six.\"", "Seven", "Eight 3.14 nine"])
    }

    @Test func passagesFitInRankOrderAndTheLastIsCutAtASentence() {
        let budget = ContextBudget(tokenizer: Self.tokenizer)
        let first = Self.hit(1, "one two three four five.")            // 6 tokens
        let second = Self.hit(2, "six seven. eight nine ten. a b c d e f g h.") // 3 + 4 + 9
        let third = Self.hit(3, "the keeper.")
        #expect(budget.count(first.text) == 6)
        // 16 per passage for its citation: the first costs 6 + 16 = 22, leaving 16 + 7, room for
        // the second's first two sentences (3 + 4 tokens) but not its third.
        let fitted = budget.fit([first, second, third], budget: 22 + 16 + 7)
        #expect(fitted.map(\.hit.passageID) == ["p1", "p2"])
        #expect(fitted[0].text == first.text && !fitted[0].trimmed && fitted[0].tokens == 6)
        #expect(fitted[1].text == "six seven. eight nine ten." && fitted[1].trimmed && fitted[1].tokens == 7)
        // Nothing of the third is given once one was cut: rank order is kept.
        #expect(budget.fit([first], budget: 10).isEmpty, "a budget smaller than one citation holds nothing")
        let all = budget.fit([first, second, third], budget: 1000)
        #expect(all.count == 3 && all.allSatisfy { !$0.trimmed })
    }

    @Test func theDocumentedSplitAddsUpToTheWindow() {
        #expect(ContextBudget.instructions + ContextBudget.question + ContextBudget.passages + ContextBudget.answer == ContextBudget.window)
        #expect(ContextBudget.window == 4096 && ContextBudget.passages == 3072)
    }

    @Test func theExtractiveAnswerPicksSentencesHoldingTheRareQueryWordsWithTheirCitation() {
        let hits = [Self.hit(1, "The keeper walks up. The lamp is heavy. The keeper oils the gear of the lamp every night."),
                    Self.hit(2, "Tides turn twice a day. The gear is brass.")]
        let answer = ExtractiveAnswer.extract("how does the keeper oil the lamp gear", from: hits)
        #expect(answer.first?.text == "The keeper oils the gear of the lamp every night.")
        #expect(answer.first?.hit.passageID == "p1" && answer.first?.rank == 1)
        #expect(answer.count == 3 && !answer.contains { $0.text == "Tides turn twice a day." })
        #expect(ExtractiveAnswer.extract("zebra", from: hits).isEmpty)
    }
}
