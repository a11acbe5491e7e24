import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// `corpusd publish` and deltas (docs/publishing.md "Deltas"): a new version gets a delta from each
/// of the last K versions still referenced, listed in the catalog and verifiable with the root
/// key; one that would not be smaller than half the bundle is not published; deltas go with the
/// bundles they lead from; the new version keeps the rows of the last one.
@Suite struct DeltaPublishTests {
    final class Fixture: PublishFolder {
        var events: [PublishProgress] = []

        init() throws { try super.init("delta-publish") }

        /// Publishes `tides` at `version` from `notes` Markdown notes; note `changed` (if any) says something new.
        @discardableResult
        func publish(_ version: Int, notes: Int = 12, changed: Set<Int> = [], bases: Int = 3, now: Date = Date(),
                     expiresIn: TimeInterval = 30 * 86400, long: Bool = false) throws -> Catalog {
            let src = "src-\(version)"
            for n in 0..<notes {
                var extra = changed.contains(n) ? " Version \(version) adds a line about flooding." : ""
                if long {
                    // Many words that barely compress, in paragraphs of their own, so that text (not
                    // SQLite's pages) is most of the bundle and every passage of a changed note changes.
                    var state = UInt64(n * 7919 + (changed.contains(n) ? version : 0)) | 1
                    let words = (0..<3000).map { _ -> String in
                        state ^= state << 13; state ^= state >> 7; state ^= state << 17
                        return String(state % 1_000_000_000, radix: 36)
                    }
                    extra = stride(from: 0, to: words.count, by: 100).map { words[$0..<$0 + 100].joined(separator: " ") + "." }.joined(separator: "\n\n")
                    try dir.write("catalog/\(src)/note-\(n).md", "# Note \(n)\n\n\(extra)\n")
                    continue
                }
                try dir.write("catalog/\(src)/note-\(n).md", "# Note \(n)\n\n## Part one\n\nEbb and flow of note \(n).\(extra)\n\n## Part two\n\nSlack water at the quay \(n).\n")
            }
            // Long notes ship without their index: a bundle's FTS5 index alone is about as large as
            // the text, so only then can a delta (text and vectors) come near the bundle's size.
            let index = long ? #","index":"install""# : ""
            try dir.write("catalog/catalog.json", #"{"id":"c","title":"C","corpora":[{"id":"tides","version":"\#(version)","source":"\#(src)","access":"free"\#(index)}]}"#)
            events = []
            return try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: tree, key: key, expiresIn: expiresIn, now: now,
                                             deltaBases: bases) { self.events.append($0) }.catalog
        }
    }

    @Test func aNewVersionListsAVerifiableDeltaFromThePreviousOne() throws {
        let f = try Fixture()
        try f.publish(1)
        let catalog = try f.publish(2, changed: [4])
        let entry = catalog.corpora[0]
        let delta = try #require(entry.deltas?.first)
        #expect(entry.deltas?.count == 1 && delta.fromVersion == CorpusVersion("1")!)
        #expect(delta.path == TreeLayout.deltaPath(sha256: delta.digest.hex) && delta.file.matches(fileAt: "\(f.tree)/\(delta.path)"))
        let reader = try DeltaReader(path: "\(f.tree)/\(delta.path)")
        let document = try reader.document(trustedKeys: [f.key.publicKey])
        #expect(document.from.version == CorpusVersion("1")! && document.to.version == CorpusVersion("2")! && document.to.content == entry.content)
        // One passage changed: one removed, one added, nothing else listed.
        #expect(document.rows == DeltaDocument.Counts(removed: 1, kept: 0, added: 1))
        #expect(f.events.contains { if case .delta(_, "1", _, _, true, false) = $0 { return true } else { return false } })
        // Publishing again changes nothing: the same delta is listed and reported unchanged.
        let again = try f.publish(2, changed: [4])
        #expect(again.corpora[0].deltas == entry.deltas)
        #expect(f.events.contains { if case .delta(_, "1", _, _, true, true) = $0 { return true } else { return false } })
    }

    /// A version over the clients' flat cap has its top document only (format.md "No flat catalog
    /// over the clients' cap"): the versions a delta leads from are read through its parts, the
    /// same read the history check makes, not from flat catalogs it does not have.
    @Test func aVersionWithoutAFlatCatalogStillGetsADeltaFromIt() throws {
        let f = try Fixture()
        try f.publish(1)
        FileIO.remove("\(f.tree)/\(TreeLayout.catalogPath(version: 1))")
        FileIO.remove("\(f.tree)/\(TreeLayout.catalogPath(version: 1)).minisig")
        let catalog = try f.publish(2, changed: [4])
        #expect(catalog.corpora[0].deltas?.map(\.fromVersion.description) == ["1"])
    }

    @Test func theLastKVersionsGetDeltasAndNoneWithKZero() throws {
        let f = try Fixture()
        for v in 1...4 { try f.publish(v, changed: [v], bases: 2) }
        let catalog = try f.publish(5, changed: [5], bases: 2)
        #expect(catalog.corpora[0].deltas?.map(\.fromVersion.description) == ["4", "3"])
        #expect(try f.publish(6, changed: [6], bases: 0).corpora[0].deltas == nil)
    }

    @Test func aDeltaNotSmallerThanHalfTheBundleIsNotPublished() throws {
        let f = try Fixture()
        try f.publish(1, notes: 4, long: true)
        // Every note changes.
        let catalog = try f.publish(2, notes: 4, changed: [0, 1, 2, 3], long: true)
        #expect(catalog.corpora[0].deltas == nil)
        #expect(f.events.contains { if case .delta(_, "1", _, _, false, false) = $0 { return true } else { return false } })
        #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(f.tree)/deltas")) ?? [] == [])
    }

    @Test func deltasGoWithTheBundlesTheyLeadFrom() throws {
        let f = try Fixture()
        let t0 = Date()
        try f.publish(1, now: t0, expiresIn: 3600)
        let two = try f.publish(2, changed: [1], now: t0.addingTimeInterval(60), expiresIn: 3600)
        let delta = try #require(two.corpora[0].deltas?.first)
        #expect(FileIO.exists("\(f.tree)/\(delta.path)"))
        // Two hours on, catalogs 1 and 2 have expired: version 1's bundle goes, and the delta from it.
        try f.publish(3, changed: [2], now: t0.addingTimeInterval(7200), expiresIn: 3600)
        #expect(!FileIO.exists("\(f.tree)/\(delta.path)"))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: "\(f.tree)/deltas")) ?? [] == [])
    }

    @Test func aNewVersionKeepsTheRowsOfTheLastOne() throws {
        let f = try Fixture()
        let one = try f.publish(1, notes: 6)
        // The first passage of note 3 changes; every other passage must stay where it was.
        let two = try f.publish(2, notes: 6, changed: [3])
        func rows(_ c: Catalog) throws -> [String: Int] {
            let out = TempDirectory("rows")
            try BundleReader(path: "\(f.tree)/\(c.corpora[0].bundle.path)").extract(to: out.url("x"), trustedKeys: [f.key.publicKey])
            return try RowLayout.read(packAt: out.url("x/pack.sqlite")).rows
        }
        let a = try rows(one), b = try rows(two)
        let kept = Set(a.keys).intersection(b.keys)
        #expect(kept.count == a.count - 1)
        #expect(kept.allSatisfy { a[$0] == b[$0] }, "a passage that stayed moved")
    }
}
