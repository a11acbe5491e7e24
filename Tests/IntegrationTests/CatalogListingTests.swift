import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpus catalog` over listing parts (docs/format.md "Listing parts"), with the real `corpusd
/// publish` and `corpusd serve`: the listing is fetched once, afterwards only where it changed;
/// every listing part is checked against the index the signed top document names; and what is
/// listed, filtered and paged is what the flat catalog of the same tree lists.
@Suite struct CatalogListingTests {
    /// Ids that place listing-part boundaries: the catalog [b1, m1, b2, m2, b3, m3] makes the
    /// listing parts [b1], [m1, b2], [m2, b3], [m3] (a part ends after a boundary id), so a
    /// change to m3 is a change to the last part alone.
    static let ids: [String] = {
        var boundaries: [String] = []
        var plain: [String] = []
        var n = 0
        while boundaries.count < 3 || plain.count < 3 {
            let id = "harbor-\(n)"
            if ListingPartition.isBoundary(id) { if boundaries.count < 3 { boundaries.append(id) } } else if plain.count < 3 { plain.append(id) }
            n += 1
        }
        return [boundaries[0], plain[0], boundaries[1], plain[1], boundaries[2], plain[2]]
    }()

    static func specs(lastVersion: String = "1") -> [IntegrationPublisher.CorpusSpec] {
        ids.enumerated().map { i, id in
            let version = i == ids.count - 1 ? lastVersion : "1"
            return .init(id: id, version: version, title: i.isMultiple(of: 2) ? "Tide tables \(id)" : "Harbor notes \(id)", documents: [
                "notes.md": "# Notes \(version)\n\nThe harbor master of \(id) writes version \(version) of the notes on the tide tables.\n",
            ])
        }
    }

    /// Publishes the six corpora, lists them once, then publishes the last one at version 2.
    struct Scenario {
        let publisher = IntegrationPublisher()
        let key: IntegrationPublisher.KeyPair
        let server: ServerProcess
        let client = IntegrationClient()

        init() throws {
            key = try publisher.keygen("root")
            try publisher.writeCatalog(CatalogListingTests.specs())
            try publisher.mustPublish(key: key.secret)
            server = try publisher.serve()
            try client.must(["remote", "add", "main", server.url, "--trust", key.pub])
            try client.must(["catalog"])
            try publisher.writeCatalog(CatalogListingTests.specs(lastVersion: "2"))
            try publisher.mustPublish(key: key.secret)
        }

        /// The listing catalog `version`'s top document names: its index, then its parts in order.
        func listing(_ version: Int) throws -> (index: PartRef, parts: [ListingPartRef]) {
            let top = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(publisher.publicDir)/\(TreeLayout.topPath(version: version))")))
            let listing = try #require(top.listing)
            let stored = try #require(FileManager.default.contents(atPath: "\(publisher.publicDir)/\(listing.index.path)"))
            return (listing.index, try ListingDocument.index(stored: stored, ref: listing.index))
        }

        /// `corpus catalog --json` must be refused with exit 3 and `code`, the home unchanged.
        func expectRefusedCatalog(code: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let before = client.snapshot
            let listed = try client.json(["catalog"])
            #expect(listed.status == 3, "\(listed.result.stdout) \(listed.result.stderr)", sourceLocation: sourceLocation)
            #expect((listed.object["error"] as? [String: Any])?["code"] as? String == code, "\(listed.result.stdout)", sourceLocation: sourceLocation)
            #expect(client.snapshot == before, "the refusal changed the home folder", sourceLocation: sourceLocation)
        }
    }

    @Test func aSecondListingFetchesOnlyTheListingPartThatChanged() async throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let (oldIndex, oldParts) = try s.listing(1)
        let (newIndex, newParts) = try s.listing(2)
        #expect(oldParts.count == 4 && newParts.count == 4, "\(oldParts) \(newParts)")
        #expect(Array(oldParts.dropLast()) == Array(newParts.dropLast()) && oldParts.last != newParts.last)
        let before = s.server.accessLog.count
        let listed = try s.client.json(["catalog"])
        #expect(listed.status == 0, "\(listed.result.stderr)")
        let versions = ((listed.object["corpora"] as? [[String: Any]]) ?? []).map { "\($0["id"] ?? "")@\($0["version"] ?? "")" }
        #expect(versions == Self.ids.enumerated().map { "\($1)@\($0 == 5 ? "2" : "1")" })
        _ = try await Polling.until(seconds: 5) { s.server.accessLog.dropFirst(before).contains { $0.contains("\"GET /parts/") } }
        try await Task.sleep(for: .milliseconds(300))
        let fetched = s.server.accessLog.dropFirst(before).filter { $0.contains("\"GET /parts/") }
        // The new index and the one listing part that holds the changed corpus; nothing of the
        // trie (nothing is installed) and none of the three parts the home already holds.
        #expect(fetched.count == 2, "\(fetched)")
        #expect(fetched.contains { $0.contains(newIndex.path) } && fetched.contains { $0.contains(newParts[3].part.path) }, "\(fetched)")
        // The home keeps the current listing only.
        let held = try FileManager.default.contentsOfDirectory(atPath: "\(s.client.home)/state/main/listing").sorted()
        #expect(held == ([newIndex] + newParts.map(\.part)).map { "\($0.digest.hex).json.gz" }.sorted())
        #expect(!held.contains("\(oldIndex.digest.hex).json.gz"))
        // Nothing new: one conditional request.
        let quiet = s.server.accessLog.count
        #expect(try s.client.json(["catalog"]).status == 0)
        _ = try await Polling.until(seconds: 5) { s.server.accessLog.count > quiet }
        try await Task.sleep(for: .milliseconds(300))
        let last = Array(s.server.accessLog.dropFirst(quiet))
        #expect(last.count == 1 && last[0].contains("\"GET /timestamp.json\" 304"), "\(last)")
    }

    @Test func aListingPartWhoseBytesDifferFromItsHashIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let changed = try #require(try s.listing(2).parts.last).part
        let path = "\(s.publisher.publicDir)/\(changed.path)"
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[bytes.count - 9] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: path))
        try s.expectRefusedCatalog(code: "integrity")
    }

    /// A well-formed listing part an attacker wrote (the changed corpus at a version and title of
    /// its choosing), served under the genuine part's name.
    @Test func aForgedListingPartIsRefused() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let changed = try #require(try s.listing(2).parts.last)
        let genuine = try ListingDocument.rows(stored: try #require(FileManager.default.contents(atPath: "\(s.publisher.publicDir)/\(changed.part.path)")),
                                               ref: changed)
        var forged = genuine
        forged[0].version = CorpusVersion("9")!
        forged[0].title = "forged \u{1b}[31m"
        try ListingDocument.part(forged).stored().write(to: URL(fileURLWithPath: "\(s.publisher.publicDir)/\(changed.part.path)"))
        try s.expectRefusedCatalog(code: "integrity")
    }

    /// The same tree without its freshness document is a tree of flat catalogs only (the client
    /// reads `catalogs/<N>.json`): queries and pages list the same rows from both.
    @Test func queriesAndPagesListWhatTheFlatCatalogLists() throws {
        let s = try Scenario()
        defer { s.server.stop() }
        let flatTree = TempDirectory("flat-tree")
        let fm = FileManager.default
        try fm.removeItem(atPath: flatTree.path)
        try fm.copyItem(atPath: s.publisher.publicDir, toPath: flatTree.path)
        for name in [TreeLayout.timestamp, TreeLayout.timestamp + TreeLayout.signatureSuffix] { try fm.removeItem(atPath: "\(flatTree.path)/\(name)") }
        let flatServer = try s.publisher.serve(tree: flatTree.path)
        defer { flatServer.stop() }
        let flat = IntegrationClient("flat")
        try flat.must(["remote", "add", "main", flatServer.url, "--trust", s.key.pub])
        #expect(!fm.fileExists(atPath: "\(flat.home)/state/main/listing"))
        for args in [["catalog"], ["catalog", "tide"], ["catalog", "harbor", "notes"], ["catalog", "--offset", "2", "--limit", "3"],
                     ["catalog", "tide", "--offset", "1", "--limit", "1"], ["catalog", "--limit", "1"], ["catalog", "--offset", "6"],
                     ["catalog", "nothing-matches-this"]] {
            for mode in [[], ["--json"]] {
                let fromListing = try s.client.run(args + mode)
                let fromFlat = try flat.run(args + mode)
                #expect(fromListing.status == 0 && fromFlat.status == 0, "\(args) \(fromListing.stderr) \(fromFlat.stderr)")
                #expect(fromListing.stdout == fromFlat.stdout, "\(args + mode)")
                #expect(!fromListing.stdout.contains("\u{1b}"))
            }
        }
        #expect(fm.fileExists(atPath: "\(s.client.home)/state/main/listing"))
        let page = try IntegrationClient.parse(try s.client.run(["catalog", "--offset", "2", "--limit", "3", "--json"]))
        #expect(((page["corpora"] as? [[String: Any]]) ?? []).map { $0["id"] as? String ?? "" } == Array(Self.ids[2..<5]))
    }
}
