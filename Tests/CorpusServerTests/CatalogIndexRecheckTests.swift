import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// A publish lands between two index checks: the new catalog.json is served from disk at once,
/// so the bundles it names must be served (and gated) at once too, not 404'd until the next check.
@Suite struct CatalogIndexRecheckTests {
    @Test func bundlesOfAJustPublishedCatalogAreServedBeforeTheNextScheduledCheck() throws {
        // An interval no test outlives: only the recheck on a miss can pick up the new catalog.
        let f = try ServerFixture { $0.catalogCheckInterval = .seconds(3600) }
        #expect(try f.get("/catalog.json").status == 200)

        let free = try f.tree.addBundle(.init("fresh-free", .free, size: 5_000))
        let paid = try f.tree.addBundle(.init("fresh-paid", .entitled, tier: "gold", size: 6_000))
        try f.tree.republish { $0 += [free, paid] }

        let r = try f.get(f.bundle("fresh-free"))
        #expect(r.status == 200 && r.body == f.tree.bundleBytes["fresh-free"])
        // The recheck applies the new catalog's gate, not a default.
        #expect(try f.get(f.bundle("fresh-paid")).status == 401)
        #expect(try f.get(f.bundle("fresh-paid"), headers: f.bearer(try f.tree.token(tiers: ["gold"]))).status == 200)
        // A bundle no catalog lists is still not served.
        #expect(try f.get("/bundles/" + String(repeating: "0", count: 64) + ".corpus.zip").status == 404)
    }

    /// The same bundle, free in one catalog and entitled in the next: from the moment the new
    /// catalog is in the tree the bundle is gated, not at the next scheduled check.
    @Test func aBundleThatTurnsEntitledIsGatedFromThePublishOn() throws {
        let f = try ServerFixture { $0.catalogCheckInterval = .seconds(3600) }
        let entry = try f.tree.addBundle(.init("turning", .free, size: 5_000))
        try f.tree.republish { $0.append(entry) }
        #expect(try f.get(f.bundle("turning")).status == 200)
        try f.tree.republish { entries in
            for i in entries.indices where entries[i].id == "turning" {
                entries[i].access = .entitled
                entries[i].tier = "gold"
            }
        }
        #expect(try f.get(f.bundle("turning")).status == 401)
        #expect(try f.get(f.bundle("turning"), headers: f.bearer(try f.tree.token(tiers: ["gold"]))).status == 200)
    }
}
