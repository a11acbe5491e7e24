import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusSync

/// Channels and phased rollouts as a client decides them: 100,000 install ids against rollouts at
/// 1 %, 10 % and 50 %, the same answer on every check, a held-back version never hiding an older
/// allowed one (Sparkle#1384), the place never redrawn (Sparkle#1736), and a halt.
@Suite struct RolloutSelectionTests {
    static func entry(_ id: String, _ version: String, channel: String? = nil, rollout: Rollout? = nil) -> CatalogEntry {
        var e = CatalogEntry(id: id, version: CorpusVersion(version)!, title: id, description: "", language: "en", license: "",
                             access: .free, tier: nil, bundled: false,
                             bundle: BundleRef(path: "bundles/\(id)-\(version).corpus.zip", digest: .filled("0"), size: 1),
                             documents: 1, passages: 1, embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"), content: .filled("d"))
        e.channel = channel
        e.rollout = rollout
        return e
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rollout = Rollout(start: start, duration: "100h")
    /// The moment the rollout has reached `share` of its duration.
    static func at(_ share: Double) -> Date { start.addingTimeInterval(share * 100 * 3600) }

    /// Install ids as homes make them: 32 bytes from a generator, as hex (SplitMix64 so the run is repeatable).
    static func installIDs(_ n: Int) -> [String] {
        var g = SplitMix64(seed: 35)
        return (0..<n).map { _ in (0..<4).map { _ in String(format: "%016llx", g.next()) }.joined() }
    }

    @Test func oneHundredThousandInstallIDsLandWithinOnePointOfEachShare() {
        let ids = Self.installIDs(100_000)
        let entries = [Self.entry("docs", "1"), Self.entry("docs", "2", rollout: Self.rollout)]
        var counts: [Double: Int] = [:]
        for share in [0.01, 0.10, 0.50] {
            counts[share] = ids.reduce(0) { n, id in
                let choice = ChannelSelection(channel: nil, installID: id, now: Self.at(share)).choose(entries)
                return n + (choice.offered.first?.version == CorpusVersion("2")! ? 1 : 0)
            }
            let got = Double(counts[share]!) / Double(ids.count)
            #expect(abs(got - share) <= 0.01, "share \(share): \(counts[share]!) of \(ids.count)")
        }
        // The counts for the record (docs/operations.md quotes them).
        print("rollout simulation: 1 % → \(counts[0.01]!), 10 % → \(counts[0.10]!), 50 % → \(counts[0.50]!) of 100000")
    }

    /// Buckets are independent across corpora: a device early for one corpus is not early for all.
    @Test func bucketsDifferAcrossCorporaAndNeverChangeForOne() {
        let id = Self.installIDs(1)[0]
        let a = RolloutBucket(installID: id, corpusID: "docs"), b = RolloutBucket(installID: id, corpusID: "tides")
        #expect(a != b)
        #expect((0..<100).allSatisfy { _ in RolloutBucket(installID: id, corpusID: "docs") == a })
        #expect((0..<1000).map { RolloutBucket(installID: "\($0)", corpusID: "docs").value }.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    /// Sparkle#1736: the group was redrawn on every check. Here the install id is made once in the
    /// home and read back on every check; the answer for a given moment never changes.
    @Test func theInstallIDIsMadeOnceAndEveryCheckGivesTheSameAnswer() throws {
        let dir = TempDirectory("installid")
        let home = HomeLayout(root: dir.path)
        #expect(try InstallID.read(home) == nil)
        let first = try InstallID.readOrCreate(home)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: home.installID))
        let entries = [Self.entry("docs", "1"), Self.entry("docs", "2", rollout: Self.rollout)]
        let answers = try (0..<50).map { _ -> CorpusVersion in
            let id = try InstallID.readOrCreate(home)
            return ChannelSelection(channel: nil, installID: id, now: Self.at(0.3)).choose(entries).offered[0].version
        }
        #expect(Set(answers).count == 1)
        #expect(try InstallID.readOrCreate(home) == first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.installID)) == bytes)
        #expect(first.count == 64)
    }

    /// A damaged install id is named as a damaged file of the home, and left as it is.
    @Test func aDamagedInstallIDIsRefusedAndLeftAlone() throws {
        let dir = TempDirectory("installid")
        let home = HomeLayout(root: dir.path)
        try dir.write("install-id", "not hex\n")
        let before = DirectorySnapshot(dir.path)
        #expect(throws: SyncError.localFileDamaged(path: home.installID,
                                                   reason: "it is not 64 lower-case hex digits (remove it and a new one is made; this home's rollout places are then drawn anew)")) {
            try InstallID.readOrCreate(home)
        }
        #expect(DirectorySnapshot(dir.path) == before)
    }

    /// Sparkle#1384: a held-back update hid older allowed ones. Stable 1, beta 3 (current) and beta 4
    /// rolling: a beta client outside the rollout gets 3, not 1 and not nothing; a stable client 1.
    @Test func aHeldBackVersionNeverHidesAnOlderAllowedOne() {
        let entries = [Self.entry("docs", "1"), Self.entry("docs", "3", channel: "beta"),
                       Self.entry("docs", "4", channel: "beta", rollout: Self.rollout), Self.entry("tides", "1", rollout: Self.rollout)]
        let early = Self.installIDs(1000).first { RolloutBucket(installID: $0, corpusID: "docs").value < 0.05 }!
        let late = Self.installIDs(1000).first { RolloutBucket(installID: $0, corpusID: "docs").value > 0.5
            && RolloutBucket(installID: $0, corpusID: "tides").value > 0.5 }!
        let beta = ChannelSelection(channel: "beta", installID: late, now: Self.at(0.1)).choose(entries)
        #expect(beta.offered.map { "\($0.id)@\($0.version)" } == ["docs@3"])
        #expect(beta.heldBack.map { "\($0.id)@\($0.version)" } == ["docs@4", "tides@1"])
        #expect(ChannelSelection(channel: "beta", installID: early, now: Self.at(0.1)).choose(entries).offered.first?.version == CorpusVersion("4")!)
        #expect(ChannelSelection(channel: nil, installID: late, now: Self.at(0.1)).choose(entries).offered.map { "\($0.id)@\($0.version)" } == ["docs@1"])
        // --now: no wait.
        #expect(ChannelSelection(channel: "beta", installID: late, now: Self.at(0.1), waitsForRollout: false).choose(entries)
                    .offered.map { "\($0.id)@\($0.version)" } == ["docs@4", "tides@1"])
        // Once the rollout ends, everyone.
        #expect(ChannelSelection(channel: "beta", installID: late, now: Self.at(1)).choose(entries).offered.first?.version == CorpusVersion("4")!)
    }

    /// A halt is the catalog republished without the rolling entry: at the next refresh no client
    /// is offered it any more (none of 10,000), and one that installed it keeps it, said so.
    @Test func aHaltStopsNewInstallsAtTheNextRefreshAndKeepsWhatWasInstalled() {
        let ids = Self.installIDs(10_000)
        let rolling = [Self.entry("docs", "1"), Self.entry("docs", "2", rollout: Self.rollout)]
        let halted = [Self.entry("docs", "1")]
        let reached = ids.filter { ChannelSelection(channel: nil, installID: $0, now: Self.at(0.2)).choose(rolling).offered[0].version == CorpusVersion("2")! }
        #expect(reached.count > 1000)
        #expect(ids.allSatisfy { ChannelSelection(channel: nil, installID: $0, now: Self.at(0.9)).choose(halted).offered[0].version == CorpusVersion("1")! })
        let offered = ChannelSelection(channel: nil, installID: reached[0], now: Self.at(0.9)).choose(halted).offered
            .map { OfferedCorpus(remote: "main", entry: $0) }
        let planner = SyncPlanner(offered: offered, installed: [InstalledCorpusRecord(remote: "main", id: "docs", version: CorpusVersion("2")!, bundled: false)],
                                  importLimit: nil)
        #expect(planner.planSync(wanted: nil, prune: false) == [.keep(planner.installed[0])])
        #expect(planner.keptNewer == [KeptNewerVersion(name: "main/docs", installed: CorpusVersion("2")!, offered: CorpusVersion("1")!, channel: "stable")])
    }

    /// `install docs@2` names the held-back version: installed without waiting, as a user-initiated check.
    @Test func aPinnedHeldBackVersionIsInstalled() {
        let stable = OfferedCorpus(remote: "main", entry: Self.entry("docs", "1"))
        let rolling = OfferedCorpus(remote: "main", entry: Self.entry("docs", "2", rollout: Self.rollout))
        var planner = SyncPlanner(offered: [stable], installed: [], importLimit: nil)
        planner.heldBack = [rolling]
        #expect(planner.planInstall([WantedCorpus(id: "docs", version: CorpusVersion("2")!)]) == [.install(rolling)])
        #expect(planner.planInstall([WantedCorpus(id: "docs")]) == [.install(stable)])
    }
}
