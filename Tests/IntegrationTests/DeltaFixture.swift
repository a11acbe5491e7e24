import Testing
import Foundation
import CorpusFormat
import CorpusPublisher
import CorpusTestSupport

/// A tree published twice by the real `corpusd publish`, so that catalog 2 offers `tides` 2 with a
/// delta from `tides` 1, served by `corpusd serve`, and a client that installed `tides` 1 from
/// catalog 1. Version 2 rewrites one note and adds one; every passage says "tidewater", the
/// changed ones "flooding" too. Helpers rewrite catalog 2 or its delta (re-signed with the root
/// key, or another) to stage refusals before the client ever sees catalog 2.
final class DeltaFixture: @unchecked Sendable {
    let tree: PublishedCorpusTree
    let server: ServerProcess
    let client = PublishedTreeClient()

    static func documents(version: Int, count: Int = 8, paragraphs: Int = 4) -> [String: String] {
        var docs = PublishedCorpusTree.documents("tidewater", count: count, paragraphs: paragraphs, seed: 5)
        if version >= 2 {
            docs["note-3.md"] = PublishedCorpusTree.documents("tidewater flooding", count: 1, paragraphs: paragraphs, seed: 77)["note-1.md"]
            docs["note-\(count + 1).md"] = "# Added note\n\nA new note about tidewater flooding the harbour.\n"
        }
        return docs
    }

    /// `documents(version)` gives each version's files, `index(version)` its catalog entry's `index`
    /// (nil: the default); `embedder` and `models` as `PublishedCorpusTree` takes them.
    init(documents: (Int) -> [String: String] = { DeltaFixture.documents(version: $0) }, embedder: String? = nil,
         models: [String: String] = [:], index: (Int) -> String? = { _ in nil }) throws {
        tree = try PublishedCorpusTree(models: models, corpora: [.init(id: "tides", documents: documents(1), embedder: embedder, index: index(1))])
        server = try tree.serve(entitlements: false)
        try client.addRemote(server.url, trust: tree.rootPub)
        try KillFixture.expectSuccess(try client.run(["install", "tides"]), "install tides 1")
        try tree.publish([.init(id: "tides", version: "2", documents: documents(2), embedder: embedder, index: index(2))])
    }

    /// `count` Markdown files of `sections` short sections each (one passage per section, about
    /// eight words), for corpora of thousands of passages that embed quickly; version 2 rewrites
    /// every section of one file in ten, drops one file and adds one.
    static func sectioned(version: Int, count: Int, sections: Int) -> [String: String] {
        let words = ["anchor", "bearing", "chart", "compass", "current", "depth", "estuary", "fathom", "gale", "headland", "inlet", "jetty",
                     "keel", "lee", "mooring", "offing", "pilot", "quay", "reef", "shoal", "sounding", "swell", "tide", "wake"]
        var out: [String: String] = [:]
        for d in 0..<count where !(version >= 2 && d == count - 1) {
            let rewritten = version >= 2 && d % 10 == 3
            var text = "# Chart \(d)\n\n"
            for s in 0..<sections {
                var state = UInt64(d * 1000 + s + (rewritten ? 500_000 : 0)) &* 6364136223846793005 &+ 1442695040888963407
                let picked = (0..<8).map { _ -> String in
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    return words[Int(state >> 33) % words.count]
                }
                text += "## Leg \(s)\n\n\(picked.joined(separator: " ")) tidewater \(rewritten ? "flooding" : "ebbing") \(d).\n\n"
            }
            out[String(format: "charts/chart-%03d.md", d)] = text
        }
        if version >= 2 { out["charts/added.md"] = "# Added chart\n\n## Leg 0\n\nA new chart of tidewater flooding the quay.\n" }
        return out
    }

    deinit { server.stop() }

    var catalogPath: String { "\(tree.publicDir)/catalogs/2.json" }

    func catalog() throws -> Catalog { try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: catalogPath))) }

    func entry() throws -> CatalogEntry { try #require(try catalog().corpora.first { $0.id == "tides" }) }

    func delta() throws -> DeltaRef { try #require(try entry().deltas?.first) }

    var rootKey: SecretKey { get throws { try SecretKey(contentsOf: tree.rootKey) } }

    /// Rewrites catalog 2 after `change`, signed again by the root key, as a publisher would have.
    func resign(_ change: (inout Catalog) -> Void) throws {
        var c = try catalog()
        change(&c)
        let bytes = try c.canonicalBytes()
        let signature = try rootKey.sign(bytes, trustedComment: c.trustedComment)
        try bytes.write(to: URL(fileURLWithPath: catalogPath))
        try Data(signature.fileText.utf8).write(to: URL(fileURLWithPath: catalogPath + TreeLayout.signatureSuffix))
        // Clients of catalog parts read the top document and parts, not catalogs/2.json: they are
        // written again from the changed catalog, as a publish writes them.
        let parts = try CatalogPartWriter.write(c, key: try rootKey, tree: tree.publicDir)
        // Every document the publisher signs is a leaf of its log: the re-signed catalog too.
        try TreeLogAppender.append(tree: tree.publicDir, catalog: c, catalogBytes: bytes, topBytes: parts.signedBytes, key: try rootKey)
        // The timestamp names the catalog by its SHA-256: a publisher signs a new one too.
        let stamp = try ProcessRunner.run(BuiltProducts.corpusd, ["timestamp", tree.publicDir, "--key", tree.rootKey])
        try #require(stamp.status == 0, "\(stamp.stderr)")
    }

    /// Puts `file` in the tree as the delta of `tides` 2 (content-addressed), listed by catalog 2.
    func listDelta(_ file: String) throws {
        let old = try delta()
        let ref = try BundleRef(hashing: file) { TreeLayout.deltaPath(sha256: $0.hex) }
        try FileManager.default.moveItem(atPath: file, toPath: "\(tree.publicDir)/\(ref.path)")
        try resign { c in
            c.corpora[0].deltas = [DeltaRef(fromVersion: old.fromVersion, fromContent: old.fromContent, file: ref)]
        }
    }

    /// The published delta taken apart, changed by `change` (its rows), `document` (its
    /// `delta.json`) and `manifest` (the new version's manifest and signature it carries in
    /// place of the published ones), and written again signed by `key`.
    func craftDelta(key: SecretKey, change: (inout DeltaChanges) -> Void = { _ in }, document edit: (inout DeltaDocument) -> Void = { _ in },
                    manifest replacement: (bytes: Data, signature: Signature)? = nil) throws -> String {
        let reader = try DeltaReader(path: "\(tree.publicDir)/\(try delta().path)")
        var document = try reader.document(trustedKeys: [try rootKey.publicKey])
        let published = try reader.manifest(of: document, trustedKeys: [try rootKey.publicKey])
        let (manifestBytes, signature) = replacement ?? (published.bytes, published.signature)
        var changes = try DeltaChanges.decode(try reader.changes(of: document), passages: Int.max)
        change(&changes)
        let work = TempDirectory("crafted-delta")
        let vectors = work.url("vectors.bin")
        try reader.extractVectors(of: document, to: vectors)
        document.to.manifest = SHA256.digest(manifestBytes)
        edit(&document)
        let out = "\(tree.work.path)/crafted-\(UInt32.random(in: 0...UInt32.max)).delta.zip"
        try DeltaWriter.write(document: document, manifest: manifestBytes, manifestSignature: signature.fileText,
                              changes: try changes.canonicalBytes(), vectorsPath: vectors, key: key, to: out)
        return out
    }

    /// The full bundle of `tides` 2 written again with its manifest changed by `change` and signed
    /// by the root key (what only a publisher's key can make), put in the tree under its
    /// content-addressed name; catalog 2 is not changed. Returns the bundle's reference and the
    /// manifest as signed, with its bytes and signature.
    func reissueBundle(_ change: (inout Manifest) -> Void) throws -> (ref: BundleRef, bytes: Data, signature: Signature) {
        let work = TempDirectory("reissued-bundle")
        let key = try rootKey
        var manifest = try BundleReader(path: "\(tree.publicDir)/\(try entry().bundle.path)").extract(to: work.url("unpacked"), trustedKeys: [key.publicKey])
        change(&manifest)
        let out = work.url("reissued.corpus.zip")
        let signed = try BundleWriter.write(manifest: manifest, packPath: work.url("unpacked/\(BundleLayout.pack)"),
                                            vectorsPath: work.url("unpacked/\(BundleLayout.vectors)"), key: key, to: out)
        let ref = try BundleRef(hashing: out) { TreeLayout.bundlePath(sha256: $0.hex) }
        try FileManager.default.moveItem(atPath: out, toPath: "\(tree.publicDir)/\(ref.path)")
        let bytes = try signed.canonicalBytes()
        return (ref, bytes, try key.sign(bytes, trustedComment: signed.trustedComment))
    }

    /// Removes the full bundle of `tides` 2 from the tree: a client whose delta is refused then has
    /// nothing to fall back to, so its home must stay exactly as it was.
    func removeFullBundle() throws {
        try FileManager.default.removeItem(atPath: "\(tree.publicDir)/\(try entry().bundle.path)")
    }

    /// `sync --json`'s one result.
    static func result(_ r: (result: ProcessResult, object: [String: Any]?)) throws -> [String: Any] {
        try #require((r.object?["results"] as? [[String: Any]])?.first, "sync --json printed \(r.result.stdout) \(r.result.stderr)")
    }

    /// Hits of `query` from `client` as (passage, score) pairs, best first.
    static func hits(_ client: PublishedTreeClient, _ query: String, lexicalOnly: Bool = false) throws -> [(String, Double)] {
        let r = try client.json(["search", query, "-k", "20"] + (lexicalOnly ? ["--lexical-only"] : []))
        let hits = try #require(r.object?["hits"] as? [[String: Any]], "search printed \(r.result.stdout) \(r.result.stderr)")
        return hits.map { ($0["passage"] as? String ?? "?", $0["score"] as? Double ?? .nan) }
    }

    /// Every query answers the same passages in the same order with the same scores (to float
    /// tolerance) from both clients.
    static func expectSameAnswers(_ a: PublishedTreeClient, _ b: PublishedTreeClient, queries: [String],
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        for q in queries {
            let x = try hits(a, q), y = try hits(b, q)
            #expect(!x.isEmpty, "no hits for \(q)", sourceLocation: sourceLocation)
            #expect(x.map(\.0) == y.map(\.0), "\(q): passages differ:\n\(x)\n\(y)", sourceLocation: sourceLocation)
            #expect(zip(x, y).allSatisfy { abs($0.1 - $1.1) <= 1e-9 * max(1, abs($0.1)) }, "\(q): scores differ", sourceLocation: sourceLocation)
        }
    }
}
