import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A gate-only `corpusd serve` redirects only what a catalog lists: every other path is answered
/// as the plain server answers it (the tree's file, or 404), never with a 302 to the public
/// location. It once redirected any content-addressed name under any folder, so a scanner got a
/// 302 for `/BUNDLES/<sha>` or `/private/bundles/<sha>` where the plain server says 404.
@Suite struct GateOnlyUnlistedPathTests {
    static let publicURL = "http://127.0.0.1:9/public-tree"

    /// The served tree, with an embedder artifact listed by the catalog besides its bundles.
    static func tree() throws -> (ServerTestTree, artifact: String) {
        let tree = try ServerTestTree()
        let bytes = Data("embedder artifact".utf8)
        let digest = SHA256.digest(bytes)
        let artifact = "embedders/\(digest.hex).embedder.zip"
        try tree.dir.write(artifact, bytes)
        var next = tree.catalog
        next.version += 1
        next.embedders = [CatalogEmbedder(id: "mini", dimension: 8, digest: digest, artifact: BundleRef(path: artifact, digest: digest, size: Int64(bytes.count)))]
        try tree.writeCatalog(next)
        return (tree, artifact)
    }

    static func gateOnly(_ tree: ServerTestTree) throws -> ServerProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ACCESS_KEY_ID"] = "AKIDEXAMPLE"
        environment["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        return try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}", "--entitlement-pub", try tree.entitlementPubFile(),
                                                         "--gate-only", "--private", "s3://bucket/private-tree", "--endpoint", "http://127.0.0.1:9",
                                                         "--public-url", publicURL], environment: environment)
    }

    @Test func pathsNoCatalogListsAre404AsOnThePlainServer() throws {
        let (tree, artifact) = try Self.tree()
        let gate = try Self.gateOnly(tree)
        defer { gate.stop() }
        let plain = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}"])
        defer { plain.stop() }
        let free = tree.bundlePaths["free-guide"]!
        let paid = tree.bundlePaths["paid-atlas"]!
        let freeName = String(free.split(separator: "/").last!)
        let paidName = String(paid.split(separator: "/").last!)
        let artifactHash = String(artifact.dropFirst("embedders/".count).prefix(64))
        let unlisted = [
            "/BUNDLES/\(freeName)", "/private/bundles/\(paidName)", "/private-tree/\(paid)", "/embedders/\(artifactHash).corpus.zip",
            "/embedders/\(freeName)", "/bundles/\(String(repeating: "a", count: 64)).corpus.zip", "/deltas/\(String(repeating: "b", count: 64)).delta.zip",
            "/x/y/\(freeName)", "/foo.txt", "/catalogs/99.json",
        ]
        for path in unlisted {
            let r = try ServerTestClient.request(port: gate.port, "GET", path)
            #expect(r.status == 404, "gate-only \(path): \(r.status) \(r.header("Location") ?? "")")
            #expect(r.header("Location") == nil, "\(path)")
            #expect(try ServerTestClient.request(port: plain.port, "GET", path).status == 404, "plain \(path)")
        }
        // What a catalog lists is still redirected: free ones to the public tree, entitled ones
        // only with a token; the tree's own files are served.
        let listedFree = try ServerTestClient.request(port: gate.port, "GET", "/" + free)
        #expect(listedFree.status == 302 && listedFree.header("Location") == "\(Self.publicURL)/\(free)")
        let listedArtifact = try ServerTestClient.request(port: gate.port, "GET", "/" + artifact)
        #expect(listedArtifact.status == 302 && listedArtifact.header("Location") == "\(Self.publicURL)/\(artifact)")
        #expect(try ServerTestClient.request(port: gate.port, "GET", "/" + paid).status == 401)
        #expect(try ServerTestClient.request(port: gate.port, "GET", "/catalog.json").status == 200)
    }
}
