import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Every root-rotation vector (`Tests/Fixtures/root-rotations/`) through the built `corpus`
/// binary: the vector's tree is served over loopback, `corpus remote add --trust` pins root 1 (its
/// document, or its key for a format-1 root), and `corpus catalog` refreshes. An accepting vector
/// exits 0 with the expected root stored; a refusing one exits 3, and the home folder is
/// byte-identical to before except for exactly the valid roots walked before the refusal, which
/// appear under `trust/main/` as served (TUF 5.3.8). Vectors refused at root 1 are left out: the
/// pinned root is trusted as given (see `RootRotationClientTests`).
@Suite struct RootRotationCLITests {
    static let vectors = ((try? RootRotationVector.all()) ?? []).filter { $0.expect.at != 1 }

    @Test func theVectorsLoad() throws {
        // The arguments come from a `try?`: an unreadable data file must fail here, not walk nothing.
        let all = try RootRotationVector.all()
        #expect(!Self.vectors.isEmpty && Self.vectors.count == all.filter { $0.expect.at != 1 }.count)
    }

    @Test(arguments: vectors)
    func corpusCatalogExitsAsTheVectorSays(_ vector: RootRotationVector) throws {
        let tree = TempDirectory("vector-tree"), pins = TempDirectory("vector-pin")
        let chain = try vector.writeTree(into: tree, catalogID: "vectors", now: Date())
        let server = try MisbehavingServer(root: tree.path)
        defer { server.stop() }
        let client = IntegrationClient("vector")
        try client.must(["remote", "add", "main", server.baseURL, "--trust", try vector.writeTrustFile(chain, into: pins)])
        let kept = try vector.keptFiles(chain, folder: "trust/main")

        let before = client.snapshot
        let r = try client.run(["catalog"])
        let after = client.snapshot

        if vector.expect.accepts {
            #expect(r.status == 0, "\(vector): exit \(r.status): \(r.stderr)")
        } else {
            #expect(r.status == 3, "\(vector): exit \(r.status), expected 3: \(r.stderr)")
            #expect(r.stderr.contains("refused"), "\(vector): \(r.stderr)")
            // Exactly the kept roots (and the folders holding them) appeared; nothing else changed.
            var expected = before.entries
            for file in kept {
                expected[file.path] = "file:" + Hex.encode(SHA256.hash(file.data))
                for folder in ["trust", "trust/main"] where expected[folder] == nil { expected[folder] = "dir" }
            }
            #expect(after.entries == expected, "\(vector): home changed other than by the kept roots:\n\(before)\n---\n\(after)")
        }
        let newest = vector.expect.trusted
        if newest >= 2 {
            #expect(FileManager.default.contents(atPath: "\(client.home)/trust/main/root-\(newest).json") == chain[newest - 1].json, "\(vector)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(client.home)/trust/main/root-\(newest + 1).json"), "\(vector)")
    }
}
