import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusSync

private func entry(_ id: String, _ version: String, bundled: Bool = false) -> CatalogEntry {
    CatalogEntry(id: id, version: CorpusVersion(version)!, title: id, description: "", language: "en", license: "",
                 access: .free, tier: nil, bundled: bundled,
                 bundle: BundleRef(path: "bundles/x.corpus.zip", digest: .filled("0"), size: 1),
                 documents: 1, passages: 1, embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"), content: .filled("d"))
}

private func have(_ id: String, _ version: String, remote: String = "main", bundled: Bool = false) -> InstalledCorpusRecord {
    InstalledCorpusRecord(remote: remote, id: id, version: CorpusVersion(version)!, bundled: bundled)
}

private func names(_ actions: [SyncAction]) -> [String] {
    actions.map { a in
        switch a {
        case let .install(o): return "install \(o.remote)/\(o.entry.id)@\(o.entry.version)"
        case let .update(from, to): return "update \(from.qualifiedName) \(from.version)->\(to.entry.version)"
        case let .keep(r): return "keep \(r.qualifiedName)"
        case let .remove(r): return "remove \(r.qualifiedName)"
        case let .refuse(name, reason): return "refuse \(name) \(reason)"
        }
    }
}

@Suite struct SyncPlanTests {
    let offered = [OfferedCorpus(remote: "main", entry: entry("a", "2")),
                   OfferedCorpus(remote: "main", entry: entry("b", "1")),
                   OfferedCorpus(remote: "main", entry: entry("docs", "1", bundled: true)),
                   OfferedCorpus(remote: "other", entry: entry("b", "5"))]

    @Test func installResolvesUpdatesAndKeeps() {
        let p = SyncPlanner(offered: offered, installed: [have("a", "1")], importLimit: nil)
        #expect(names(p.planInstall([WantedCorpus(id: "a"), WantedCorpus(id: "main/b"), WantedCorpus(id: "zzz")])) ==
                ["update main/a 1->2", "install main/b@1", "refuse zzz notFound"])
    }

    /// After a stolen catalog key is rotated, a version the thief published ahead of the catalog
    /// is replaced by the one offered, lower as it is; a revoked signer at the offered version is
    /// kept, and without a revocation nothing goes down.
    @Test func syncReplacesAVersionSignedByARevokedKeyEvenWhenTheOfferIsLower() {
        var p = SyncPlanner(offered: offered, installed: [have("a", "9"), have("b", "1")], importLimit: nil)
        #expect(names(p.planSync(wanted: nil, prune: false)) == ["keep main/a", "keep main/b"])
        p.revoked = ["main/a", "main/b"]
        #expect(names(p.planSync(wanted: nil, prune: false)) == ["update main/a 9->2", "keep main/b"])
    }

    @Test func clashingIdsNeedTheCatalogName() {
        let p = SyncPlanner(offered: offered, installed: [], importLimit: nil)
        #expect(names(p.planInstall([WantedCorpus(id: "b")])) == ["refuse b ambiguous(candidates: [\"main/b\", \"other/b\"])"])
        #expect(names(p.planInstall([WantedCorpus(id: "other/b")])) == ["install other/b@5"])
    }

    @Test func importLimitCountsOnlyNonBundledAndRefusesPastIt() {
        let p = SyncPlanner(offered: offered, installed: [have("x", "1", remote: "local")], importLimit: 2)
        #expect(p.importsUsed == 1)
        #expect(names(p.planInstall([WantedCorpus(id: "docs"), WantedCorpus(id: "a"), WantedCorpus(id: "main/b")])) ==
                ["install main/docs@1", "install main/a@2", "refuse main/b importLimit(used: 2, limit: 2)"])
    }

    @Test func updatesDoNotCountAgainstTheLimit() {
        let p = SyncPlanner(offered: offered, installed: [have("a", "1")], importLimit: 1)
        #expect(names(p.planInstall([WantedCorpus(id: "a")])) == ["update main/a 1->2"])
    }

    @Test func pinnedVersionNotOfferedIsRefusedUnlessInstalled() {
        let p = SyncPlanner(offered: offered, installed: [have("a", "1")], importLimit: nil)
        #expect(names(p.planInstall([WantedCorpus(id: "a", version: CorpusVersion("1"))])) == ["keep main/a"])
        #expect(names(p.planInstall([WantedCorpus(id: "main/b", version: CorpusVersion("9"))])) == ["refuse main/b versionNotOffered(9)"])
    }

    @Test func syncWithoutWantedUpdatesOnlyWhatIsBehind() {
        let p = SyncPlanner(offered: offered, installed: [have("a", "1"), have("b", "1"), have("gone", "3")], importLimit: nil)
        #expect(names(p.planSync(wanted: nil, prune: false)) == ["update main/a 1->2", "keep main/b", "keep main/gone"])
    }

    @Test func pruneRemovesOnlyUnlisted() {
        let p = SyncPlanner(offered: offered, installed: [have("a", "2"), have("b", "1")], importLimit: nil)
        #expect(names(p.planSync(wanted: [WantedCorpus(id: "a")], prune: false)) == ["keep main/a"])
        #expect(names(p.planSync(wanted: [WantedCorpus(id: "a")], prune: true)) == ["keep main/a", "remove main/b"])
    }

    @Test func planIsIdempotentOnceApplied() {
        let wanted = [WantedCorpus(id: "a"), WantedCorpus(id: "main/b")]
        let first = SyncPlanner(offered: offered, installed: [], importLimit: nil).planSync(wanted: wanted, prune: true)
        #expect(names(first) == ["install main/a@2", "install main/b@1"])
        let second = SyncPlanner(offered: offered, installed: [have("a", "2"), have("b", "1")], importLimit: nil).planSync(wanted: wanted, prune: true)
        #expect(names(second) == ["keep main/a", "keep main/b"])
    }

    @Test func wantedFileAcceptsStringsAndObjects() throws {
        let json = #"["a", "main/b@1", {"id": "docs", "version": "1"}]"#
        let w = try JSONDecoder().decode([WantedCorpus].self, from: Data(json.utf8))
        #expect(w == [WantedCorpus(id: "a"), WantedCorpus(id: "main/b", version: CorpusVersion("1")), WantedCorpus(id: "docs", version: CorpusVersion("1"))])
    }
}
