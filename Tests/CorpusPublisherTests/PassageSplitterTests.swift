import Testing
import CorpusFormat
@testable import CorpusPublisher

@Suite struct PassageSplitterTests {
    @Test func smallParagraphsMergeUpToTheCap() {
        let chunks = PassageSplitter.chunks(["aaaa", "bbbb", "cccc"], maxLength: 10)
        #expect(chunks == ["aaaa\n\nbbbb", "cccc"])
    }

    @Test func longParagraphSplitsAtSentencesThenWordsNeverInsideAWord() {
        let sentence = "The tide turns twice a day near the harbour mouth."   // 50 scalars
        let paragraph = Array(repeating: sentence, count: 5).joined(separator: " ")
        let chunks = PassageSplitter.chunks([paragraph], maxLength: 120)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 120 })
        #expect(chunks.allSatisfy { $0.hasSuffix(".") })
        #expect(chunks.joined(separator: " ") == paragraph)

        let words = Array(repeating: "seamanship", count: 40).joined(separator: " ")
        let wordChunks = PassageSplitter.chunks([words], maxLength: 64)
        #expect(wordChunks.allSatisfy { $0.unicodeScalars.count <= 64 })
        #expect(wordChunks.flatMap { $0.split(separator: " ") }.allSatisfy { $0 == "seamanship" })
    }

    @Test func unspacedTextIsCutOnCharacterBoundaries() {
        let cjk = String(repeating: "東京湾", count: 50)
        let chunks = PassageSplitter.chunks([cjk], maxLength: 40)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 40 })
        #expect(chunks.joined() == cjk)
    }

    @Test func idsUseTheOrdinalWithinTheSectionAndStayStable() {
        let doc = SourceDocument(path: "g.md", title: "G", sections: [
            SourceSection(headings: ["A"], paragraphs: ["one", "two"]),
            SourceSection(headings: ["B"], paragraphs: ["three"]),
        ])
        let passages = PassageSplitter.passages(of: doc, document: 0, maxLength: 5)
        #expect(passages.map(\.ordinal) == [0, 1, 2])
        #expect(passages.map(\.section) == ["A", "A", "B"])
        #expect(passages[2].pid == PassageID.make(documentPath: "g.md", section: "B", ordinal: 0, text: "three"))
        // A passage added to section A does not change section B's ids.
        var edited = doc
        edited.sections[0].paragraphs.append("new")
        let after = PassageSplitter.passages(of: edited, document: 0, maxLength: 5)
        #expect(after.last?.pid == passages.last?.pid)
        #expect(after.last?.ordinal == 3)
    }
}
