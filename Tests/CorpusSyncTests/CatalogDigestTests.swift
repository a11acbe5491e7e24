import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// A signed catalog naming a bundle by an upper-case hash used to be accepted (and written to the
/// home as the accepted catalog), and only the download then refused the reference. It is refused
/// where it decodes, before anything is kept.
@Suite struct CatalogDigestTests {
    @Test func aSignedCatalogWithAnUpperCaseBundleHashIsRefusedBeforeAnythingIsKept() async throws {
        let env = try SyncTestEnvironment()
        let bytes = try env.tree.publish(version: 1)
        let sha = env.tree.bundleRef.digest.hex
        let edited = Data(String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: #""sha256":"\#(sha)""#, with: #""sha256":"\#(sha.uppercased())""#).utf8)
        #expect(edited != bytes)
        let path = TreeLayout.catalogPath(version: 1)
        try env.tree.directory.write(path, edited)
        let signature = try env.tree.rootKeys[0].sign(edited, trustedComment: try Catalog.decode(bytes).trustedComment)
        try env.tree.directory.write(path + TreeLayout.signatureSuffix, signature.fileText)
        let remote = try env.remote(try env.server())
        await env.expectRefusal(.malformed(what: "catalog", reason: "not a SHA-256 digest (64 lower-case hex digits) at corpora.0.bundle.sha256")) {
            try await env.fetcher().refresh(remote)
        }
        #expect(!FileManager.default.fileExists(atPath: env.home.state("main")))
    }
}
