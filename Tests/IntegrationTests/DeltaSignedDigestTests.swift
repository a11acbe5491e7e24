import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// A client updating by delta must arrive at exactly the new version's signed content digest, from
/// exactly the installed base, or take the full bundle. Each test stages, with documents signed by
/// the publisher's own root key (what an honest publisher never produces), a delta that applies
/// cleanly but for the one check it is about, so that the test fails when that check is removed:
/// the delta would then be installed, where it must be refused and the full bundle installed.
@Suite struct DeltaSignedDigestTests {
    /// `sync --json`'s result for `tides`, which must have updated to 2 by the full bundle after
    /// the delta was refused with `code` and a message holding each of `texts`.
    static func expectFullBundleAfterRefusedDelta(_ f: DeltaFixture, code: String, containing texts: [String],
                                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let sync = try f.client.json(["sync"])
        #expect(sync.result.status == 0, "\(sync.result.stdout) \(sync.result.stderr)", sourceLocation: sourceLocation)
        let result = try DeltaFixture.result(sync)
        #expect(result["status"] as? String == "updated" && result["via"] as? String == "full", "\(result)", sourceLocation: sourceLocation)
        let error = try #require(result["delta_error"] as? [String: Any], "no delta_error in \(result)", sourceLocation: sourceLocation)
        #expect(error["code"] as? String == code, "\(error)", sourceLocation: sourceLocation)
        for text in texts { #expect((error["message"] as? String ?? "").contains(text), "\(error)", sourceLocation: sourceLocation) }
        #expect(sync.result.stderr.contains("note: main/tides: the delta was not used"), "\(sync.result.stderr)", sourceLocation: sourceLocation)
        #expect(try f.client.installed() == ["tides@2"], sourceLocation: sourceLocation)
        // What is installed is the catalog's full bundle, not a pack patched by a delta.
        let record = try Data(contentsOf: URL(fileURLWithPath: "\(f.client.home)/corpora/main/tides/current/install.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: record) as? [String: Any], sourceLocation: sourceLocation)
        #expect(object["bundle_sha256"] as? String == (try f.entry().bundle.digest.hex), "install.json: \(object)", sourceLocation: sourceLocation)
        #expect((object["local_pack"] as? [String: Any])?["delta"] == nil, "install.json: \(object)", sourceLocation: sourceLocation)
    }

    /// Version 2's manifest, re-signed by the root key, claims a content digest its passages do not
    /// have; the catalog, the delta's document and both manifests agree on it, and the patched
    /// pack's rows and vectors are the signed ones. Only recomputing the content digest of the
    /// result notices. The full bundle (whose pack is not patched here) is then installed.
    @Test func aDeltaWhoseResultIsNotTheSignedContentDigestFallsBackToTheFullBundle() throws {
        let f = try DeltaFixture()
        let claimed = SHA256.digest(Data("no pack of tides 2 has this content".utf8))
        let bundle = try f.reissueBundle { $0.content = claimed }
        let delta = try f.craftDelta(key: try f.rootKey, document: { $0.to.content = claimed },
                                     manifest: (bundle.bytes, bundle.signature))
        try f.listDelta(delta)
        try f.resign { c in
            c.corpora[0].content = claimed
            c.corpora[0].bundle = bundle.ref
        }
        try Self.expectFullBundleAfterRefusedDelta(f, code: "delta", containing: ["applying the delta gave content digest",
                                                                                  "the signed manifest says \(claimed.hex)"])
    }

    /// The catalog's reference names the installed version and content, but the signed delta
    /// document says it was made from other content: the delta must match the installed base by
    /// its own signed word, not only by the catalog's copy.
    @Test func aDeltaDocumentFromOtherContentThanTheInstalledFallsBackToTheFullBundle() throws {
        let f = try DeltaFixture()
        let installed = try f.delta().fromContent
        let other = SHA256.digest(Data("another tides 1".utf8))
        try f.listDelta(try f.craftDelta(key: try f.rootKey, document: { $0.from.content = other }))
        #expect(try f.delta().fromContent == installed, "the catalog's copy must still name the installed content")
        try Self.expectFullBundleAfterRefusedDelta(f, code: "delta",
                                                   containing: ["content digest \(other.hex.prefix(12))…, installed \(installed.hex.prefix(12))…"])
    }
}
