import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport
@testable import CorpusSync

/// The client shows a corpus as locked exactly when the server would refuse the token for it:
/// a token that names no audience is refused by a server that knows its catalog id (403), so the
/// client must not show the corpus unlocked.
@Suite struct LockDisplayTests {
    static func offer() -> OfferedCorpus {
        OfferedCorpus(remote: "main", entry: CatalogEntry(
            id: "atlas", version: CorpusVersion("1")!, title: "Atlas", description: "", language: "en", license: "",
            access: .entitled, tier: nil, bundled: false,
            bundle: BundleRef(path: "bundles/x.corpus.zip", digest: .filled("0"), size: 1),
            documents: 1, passages: 1, embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"), content: .filled("d")))
    }

    static func client(audience: String?) throws -> CorpusClient {
        let token = try EntitlementToken.issue(key: try SecretKey.generate(), issuer: "test", subject: "reader",
                                               audience: audience, corpora: ["atlas"], lifetime: 3600)
        return CorpusClient(home: HomeLayout(root: "/nonexistent"), token: token.compact)
    }

    @Test(arguments: [
        ("main-catalog", false),   // the token's audience is this catalog
        ("another", true),         // another catalog's token
        (nil, true),               // no audience: the server answers 403
    ] as [(String?, Bool)])
    func lockedExactlyWhenTheServerWouldRefuse(audience: String?, locked: Bool) throws {
        let client = try Self.client(audience: audience)
        #expect(client.isLocked(Self.offer(), catalogID: "main-catalog") == locked)
    }
}
