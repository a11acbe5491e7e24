import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
import CorpusPublisher

/// The sample corpora of `catalog/`, built by the real builder and read back through the engine:
/// each document's text in reading order is its source's extracted text, every passage is placed
/// exactly once at a range holding its text, and `--at` lands on the passage's section.
@Suite struct SampleCorpusReadTests {
    static func home() throws -> BuiltHome {
        let h = try BuiltHome()
        for id in BuiltHome.samples { try h.build("\(BuiltHome.packageRoot)/catalog/\(id)", id: id) }
        return h
    }

    @Test func eachDocumentReadsAsItsSourceTextWithEveryPassageOnceAtItsRange() async throws {
        let h = try Self.home()
        let browser = LocalBrowser(library: CorpusLibrary(home: h.home))
        for id in BuiltHome.samples {
            let source = try Ingest.folder("\(BuiltHome.packageRoot)/catalog/\(id)").documents
            let listing = try await browser.documents(corpus: id, from: nil)
            #expect(listing.next == nil)
            #expect(listing.documents.map(\.path) == source.map(\.path), "\(id): the documents in build order")
            var placed: [String: Int] = [:]
            for (document, extracted) in zip(listing.documents, source) {
                let read = try await browser.readToEnd(corpus: id, document: document.path)
                #expect(read.title == extracted.title && read.next == nil)
                let expected = ReadText.normalised(extracted.sections.flatMap(\.paragraphs).joined(separator: " "))
                #expect(BuiltHome.text(read) == expected, "\(id) \(document.path)")
                #expect(read.sections.map(\.title) == document.sections.map(\.title))
                #expect(read.sections.compactMap { $0.passages.first?.id } == document.sections.map(\.passage))
                for section in read.sections {
                    for p in section.passages {
                        placed[p.id, default: 0] += 1
                        let stored = try #require(try h.passages(id).first { $0.pid == p.id })
                        #expect(ReadText.slice(section.text, p.start, p.end) == stored.text, "\(id) \(p.id)")
                        #expect(stored.section == section.title && stored.document == document.path)
                    }
                }
                #expect(read.sections.reduce(0) { $0 + $1.passages.count } == document.passages)
            }
            let all = try h.passages(id).map(\.pid)
            #expect(placed.count == all.count && Set(placed.keys) == Set(all), "\(id): every passage placed")
            #expect(placed.values.allSatisfy { $0 == 1 }, "\(id): no passage placed twice")
        }
    }

    @Test func atASearchHitLandsOnTheSectionThatHoldsIt() async throws {
        let h = try Self.home()
        let library = CorpusLibrary(home: h.home)
        let browser = LocalBrowser(library: library)
        let hits = try await library.search("tide starter orbit flour chart", options: SearchOptions(k: 20))
        #expect(hits.count >= 5)
        for hit in hits {
            let page = try await browser.read(corpus: hit.corpus, document: hit.document, at: hit.passageID, from: nil)
            let holding = try #require(page.sections.first { $0.passages.contains { $0.id == hit.passageID } }, "\(hit.passageID)")
            #expect(holding.title == hit.section)
            let range = try #require(holding.passages.first { $0.id == hit.passageID })
            #expect(ReadText.slice(holding.text, range.start, range.end) == hit.text)
            // Short sections fit a page: the page opens at the section's first passage.
            let location = try await browser.locate(corpus: hit.corpus, passage: hit.passageID)
            #expect(location.document == hit.document && location.section == hit.section)
            let listed = try await browser.documents(corpus: hit.corpus, from: hit.document).documents.first
            #expect(page.sections.first?.passages.first?.id == listed?.sections.first { $0.title == hit.section }?.passage)
        }
    }
}
