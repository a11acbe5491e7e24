import Foundation
import Testing
import CorpusFormat
import CorpusPublisher
import CorpusTestSupport
@testable import CorpusServer

/// The server's index of which bundles are entitled, on a tree whose flat catalog is larger than
/// the index reads of one file (a 100,000-entry catalog is about 69 MB): a version with a top
/// document is indexed from its parts, and gated as they say.
@Suite struct CatalogPartsIndexTests {
    /// Catalog version `version` of `f`'s tree with 300 generated entries besides the fixture's,
    /// written as `corpusd publish` writes it (parts, top document, flat catalog, pointer), its flat
    /// catalog then grown to the 69 MB of a 100,000-entry one: the valid catalog followed by a hole
    /// (a sparse file; generating 100,000 real entries in a debug build takes minutes). The size is
    /// what made the server skip it; its entries are the parts'.
    static func writeOverCap(_ f: ServerFixture, version: Int, extra: [CatalogEntry] = []) throws -> Catalog {
        var c = f.tree.catalog
        c.version = version
        let template = c.corpora[0]
        let generated = (0..<300).map { n -> CatalogEntry in
            var e = template
            e.id = "generated-\(n)"
            let digest = SHA256.digest(Data(e.id.utf8))
            e.bundle = BundleRef(path: TreeLayout.bundlePath(sha256: digest.hex), digest: digest, size: 3_114)
            return e
        }
        c.corpora = f.tree.catalog.corpora.filter { !$0.id.hasPrefix("generated-") } + extra + generated
        _ = try CatalogPartWriter.write(c, key: f.tree.rootKey, tree: f.tree.root)
        try f.tree.writeCatalog(c)
        #expect(truncate(f.tree.root + "/" + TreeLayout.catalogPath(version: version), 69_000_000) == 0)
        return c
    }

    @Test func aTreeWhoseFlatCatalogIsOverTheOldCapIsServedAndGatedFromItsParts() throws {
        let f = try ServerFixture()
        let late = try f.tree.addBundle(.init("late-free", .free, size: 5_000))
        _ = try Self.writeOverCap(f, version: 1, extra: [late])
        let flat = FileIO.fileSize(f.tree.root + "/" + TreeLayout.catalogPath(version: 1)) ?? 0
        #expect(flat > CatalogIndex.maxCatalogBytes)

        let free = try f.get(f.bundle("free-guide"))
        #expect(free.status == 200)
        #expect(free.body == f.tree.bundleBytes["free-guide"])
        #expect(try f.get(f.bundle("late-free")).status == 200)
        #expect(try f.get(f.bundle("paid-atlas")).status == 401)
        #expect(try f.get(f.bundle("paid-atlas"), headers: f.bearer(try f.tree.token(tiers: ["gold"]))).status == 200)
        #expect(try f.get("/bundles/" + String(repeating: "0", count: 64) + ".corpus.zip").status == 404)
    }

    /// The next version changes one corpus's access: the newest version's parts decide, as the
    /// newest flat catalog did, while the parts it shares with the version before are read once.
    @Test func theNewestVersionsPartsDecideAcrossVersionsWithParts() throws {
        let f = try ServerFixture()
        _ = try Self.writeOverCap(f, version: 1)
        #expect(try f.get(f.bundle("paid-notes")).status == 401)
        var next = f.tree.catalog
        next.version = 2
        for i in next.corpora.indices where next.corpora[i].id == "paid-notes" {
            next.corpora[i].access = .free
            next.corpora[i].tier = nil
        }
        _ = try CatalogPartWriter.write(next, key: f.tree.rootKey, tree: f.tree.root)
        try f.tree.writeCatalog(next)
        #expect(try f.get(f.bundle("paid-notes")).status == 200)
        #expect(try f.get(f.bundle("paid-atlas")).status == 401)
    }
}
