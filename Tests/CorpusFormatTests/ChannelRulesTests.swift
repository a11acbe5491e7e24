import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// The signed catalog's rule for several entries under one id: per channel, its current version
/// and at most one newer version carrying a rollout; anything else refused whole, naming the
/// corpus, the channel and the versions.
@Suite struct ChannelRulesTests {
    static func entry(_ id: String, _ version: String, channel: String? = nil, rollout: Rollout? = nil, content: Character = "d") -> CatalogEntry {
        var e = CatalogEntry(id: id, version: CorpusVersion(version)!, title: id, description: "", language: "en", license: "",
                             access: .free, tier: nil, bundled: false,
                             bundle: BundleRef(path: "bundles/\(id)-\(version).corpus.zip", digest: .filled("0"), size: 1),
                             documents: 1, passages: 1, embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"),
                             content: .filled(content))
        e.channel = channel
        e.rollout = rollout
        return e
    }

    static let rollout = Rollout(start: Date(timeIntervalSince1970: 1_800_000_000), duration: "7d")

    static func decode(_ corpora: [CatalogEntry]) throws -> Catalog {
        let c = Catalog(id: "cat", title: "t", version: 1, issued: Date(timeIntervalSince1970: 1_790_000_000),
                        expires: Date(timeIntervalSince1970: 1_900_000_000), rootVersion: 1, corpora: corpora)
        return try Catalog.decode(try c.canonicalBytes())
    }

    @Test func acceptsAStableAndABetaVersionAndOneRolloutPerChannel() throws {
        let c = try Self.decode([Self.entry("docs", "1", content: "a"),
                                 Self.entry("docs", "2", rollout: Self.rollout, content: "b"),
                                 Self.entry("docs", "3", channel: "beta", content: "c"),
                                 Self.entry("docs", "4", channel: "beta", rollout: Self.rollout, content: "e")])
        #expect(c.corpora.map(\.channelName) == ["stable", "stable", "beta", "beta"])
        #expect(c.corpora[1].rollout == Self.rollout)
        // The same version on two channels is fine when it is the same content.
        _ = try Self.decode([Self.entry("docs", "1"), Self.entry("docs", "1", channel: "beta")])
    }

    @Test(arguments: [
        ([ChannelRulesTests.entry("docs", "1"), ChannelRulesTests.entry("docs", "2")],
         "corpus docs lists two current versions on channel stable (1, 2); give the newer one a \"rollout\" or remove the older"),
        ([ChannelRulesTests.entry("docs", "1", rollout: ChannelRulesTests.rollout), ChannelRulesTests.entry("docs", "2", rollout: ChannelRulesTests.rollout, content: "e")],
         "corpus docs lists two versions with a rollout on channel stable (1, 2); one rollout at a time per channel"),
        ([ChannelRulesTests.entry("docs", "2"), ChannelRulesTests.entry("docs", "1", rollout: ChannelRulesTests.rollout, content: "e")],
         "corpus docs on channel stable: the version with a rollout (1) is not newer than the current one (2)"),
        ([ChannelRulesTests.entry("docs", "1", channel: "beta"), ChannelRulesTests.entry("docs", "2", channel: "beta", rollout: ChannelRulesTests.rollout, content: "e"),
          ChannelRulesTests.entry("docs", "3", channel: "beta", content: "f")],
         "corpus docs lists 3 entries on channel beta (1, 2, 3); a channel holds its current version and at most one newer version with a rollout"),
        ([ChannelRulesTests.entry("docs", "1", content: "a"), ChannelRulesTests.entry("docs", "1", channel: "beta", content: "b")],
         "corpus docs lists version 1 twice with different content; a version names one content on every channel"),
        ([ChannelRulesTests.entry("docs", "1", channel: "../beta")],
         "corpus docs names channel \"../beta\", which is not a valid channel name (letters, digits, '-', '_', '.')"),
        ([ChannelRulesTests.entry("docs", "1", rollout: Rollout(start: Date(), duration: "soon"))],
         "corpus docs 1: rollout duration \"soon\" is not a duration like 90m, 48h or 7d"),
    ] as [([CatalogEntry], String)])
    func refusesEveryOtherShapeNamingIt(corpora: [CatalogEntry], reason: String) {
        #expect(throws: FormatError.malformed(what: "catalog", reason: reason)) { try Self.decode(corpora) }
    }

    /// Linear growth from 0 at the start to everyone at start + duration; a bucket is offered once the share reaches it.
    @Test func aRolloutOffersABucketOnceTheShareReachesIt() {
        let r = Rollout(start: Date(timeIntervalSince1970: 1000), duration: "100s")
        #expect(!r.offers(bucket: 0, at: Date(timeIntervalSince1970: 999)))
        #expect(r.offers(bucket: 0.1, at: Date(timeIntervalSince1970: 1010)))
        #expect(!r.offers(bucket: 0.11, at: Date(timeIntervalSince1970: 1010)))
        #expect(r.offers(bucket: 0.999, at: Date(timeIntervalSince1970: 1100)))
        #expect(r.share(at: Date(timeIntervalSince1970: 1050)) == 0.5)
    }
}
