import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// A tree's transparency log served by `corpusd serve`: tiles and entry bundles (full and partial)
/// are immutable, cached for a year; the checkpoint is text, revalidated every time, and new the
/// moment a publish replaces it.
@Suite struct LogFilePolicyTests {
    @Test func tilesAreImmutableAndTheCheckpointIsRevalidated() throws {
        let f = try ServerFixture()
        try f.tree.dir.write("log/checkpoint", "corpussync/harbor\n1\nAAAA\n\n")
        try f.tree.dir.write("log/tile/0/000.p/1", String(repeating: "h", count: 32))
        try f.tree.dir.write("log/tile/entries/x001/234", "e")
        let cases: [(String, String, String)] = [
            ("/log/checkpoint", "text/plain; charset=utf-8", "no-cache"),
            ("/log/tile/0/000.p/1", "application/octet-stream", "public, max-age=31536000, immutable"),
            ("/log/tile/entries/x001/234", "application/octet-stream", "public, max-age=31536000, immutable"),
        ]
        for (target, type, cache) in cases {
            let r = try f.get(target)
            #expect(r.status == 200, "\(target)")
            #expect(r.header("Content-Type") == type && r.header("Cache-Control") == cache, "\(target): \(r.header("Cache-Control") ?? "-")")
        }
        _ = try f.get("/log/checkpoint")
        try FileIO.writeAtomically(Data("corpussync/harbor\n2\nBBBB\n\n".utf8), to: f.tree.dir.url("log/checkpoint"))
        #expect(try f.get("/log/checkpoint").body == Data("corpussync/harbor\n2\nBBBB\n\n".utf8))
    }
}
