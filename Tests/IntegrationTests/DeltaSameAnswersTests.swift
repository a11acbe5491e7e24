import Testing
import Foundation
import CorpusTestSupport

/// Issue 14 item 4: after an update by delta, `corpus search` returns the same passages in the
/// same order with the same scores as a fresh full install of that version, on corpora of
/// thousands of passages, with each embedder (the model-free hashing one, and all-MiniLM-L6-v2
/// when its weights are in `models/`). Both channels are compared: lexical only, and fused.
@Suite struct DeltaSameAnswersTests {
    static let queries = ["tidewater flooding", "anchor compass", "gale over the reef", "chart 13 leg 7", "where is the pilot quay",
                          "ebbing 42", "sounding swell wake", "added chart"]

    static func compare(embedder: String?, models: [String: String], sections: Int) throws {
        let f = try DeltaFixture(documents: { DeltaFixture.sectioned(version: $0, count: 60, sections: sections) }, embedder: embedder,
                                 models: models)
        let entry = try f.entry()
        #expect(entry.passages >= 2_000, "\(entry.passages) passages")
        if let embedder { #expect(entry.embedder.id == embedder) }
        let sync = try DeltaFixture.result(f.client.json(["sync"]))
        #expect(sync["via"] as? String == "delta", "\(sync)")
        let fresh = PublishedTreeClient()
        try fresh.addRemote(f.server.url, trust: f.tree.rootPub)
        #expect(try fresh.run(["install", "tides"]).status == 0)
        try DeltaFixture.expectSameAnswers(f.client, fresh, queries: queries)
        for q in queries {
            let a = try DeltaFixture.hits(f.client, q, lexicalOnly: true), b = try DeltaFixture.hits(fresh, q, lexicalOnly: true)
            #expect(a.map(\.0) == b.map(\.0) && zip(a, b).allSatisfy { abs($0.1 - $1.1) <= 1e-9 * max(1, abs($0.1)) }, "\(q), lexical only")
        }
        #expect(try f.client.run(["verify"]).status == 0)
    }

    @Test func withTheHashingEmbedder() throws {
        try Self.compare(embedder: nil, models: [:], sections: 40)
    }

    @Test(.enabled(if: SemanticSearchFlowTests.modelAvailable, "models/all-MiniLM-L6-v2 is absent: run scripts/fetch-model.sh (make test does)"))
    func withAllMiniLM() throws {
        try Self.compare(embedder: "all-MiniLM-L6-v2", models: ["all-MiniLM-L6-v2": SemanticSearchFlowTests.modelFolder], sections: 34)
    }
}
