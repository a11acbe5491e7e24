import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// deploy/nginx.conf with the real nginx in front of the real `corpusd serve` (for auth_request).
@Suite struct NginxFrontTests {
    static var nginx: String? { try? ProcessRunner.which("nginx") }
    /// The package root, found from this file's location (Tests/CorpusServerTests/…).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(.enabled(if: nginx != nil && getuid() == 0, "needs nginx, run as root"))
    func nginxServesTheTreeAndAsksCorpusdAboutBundles() throws {
        let tree = try ServerTestTree()
        // nginx workers run as nobody: let them read the tree (mkdtemp makes it 0700).
        chmod(tree.root, 0o755)
        let pub = try tree.entitlementPubFile()
        let corpusd = try ServerProcess(BuiltProducts.corpusd, ["serve", tree.root, "--listen", "127.0.0.1:{PORT}", "--entitlement-pub", pub])
        defer { corpusd.stop() }

        let runtime = TempDirectory("nginx")
        let deployed = try DeployedNginx("nginx.conf", packageRoot: Self.packageRoot, runtime: runtime,
                                         placeholders: ["PUBLIC_DIR": tree.root, "CORPUSD": "127.0.0.1:\(corpusd.port)"])
        let port = deployed.port
        let unfilled = deployed.text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains(/@[A-Z_]+@/) }
        #expect(unfilled.isEmpty, "placeholders left unfilled: \(unfilled)")
        let check = try ProcessRunner.run(Self.nginx!, ["-t"] + deployed.arguments)
        #expect(check.status == 0, "\(check.stderr)")
        let front = try deployed.start()
        defer { front.stop() }

        func get(_ path: String, _ headers: [String: String] = [:]) throws -> RawHTTPResponse {
            try ServerTestClient.request(port: port, "GET", path, headers: headers)
        }
        let free = "/" + tree.bundlePaths["free-guide"]!, gated = "/" + tree.bundlePaths["paid-atlas"]!
        let good = try tree.token(corpora: ["paid-atlas"])

        let freeResponse = try get(free)
        #expect(freeResponse.status == 200 && freeResponse.body == tree.bundleBytes["free-guide"])
        #expect(freeResponse.header("Cache-Control") == "public, max-age=31536000, immutable")

        let noToken = try get(gated)
        #expect(noToken.status == 401)
        #expect(noToken.header("WWW-Authenticate") == "Bearer realm=\"corpus\", error=\"invalid_token\"")
        #expect(try get(gated, ["Authorization": "Bearer " + (try tree.token(corpora: ["paid-notes"]))]).status == 403)
        #expect(try get(gated, ["Authorization": "Bearer " + (try tree.token(corpora: ["paid-atlas"], audience: "elsewhere"))]).status == 403)

        let granted = try get(gated, ["Authorization": "Bearer \(good)"])
        #expect(granted.status == 200 && granted.body == tree.bundleBytes["paid-atlas"])
        #expect(granted.header("Cache-Control") == "private, max-age=31536000, immutable")

        let ranged = try get(gated, ["Authorization": "Bearer \(good)", "Range": "bytes=100-199"])
        #expect(ranged.status == 206)
        #expect(ranged.header("Content-Range") == "bytes 100-199/20000")
        #expect(ranged.body == tree.bundleBytes["paid-atlas"]!.subdata(in: 100..<200))

        #expect(try get("/catalog.json").header("Cache-Control") == "no-cache")
        try tree.dir.write("timestamp.json", #"{"version":1}"#)
        #expect(try get("/timestamp.json").header("Cache-Control") == "no-cache")
        #expect(try get("/catalogs/1.json").header("Cache-Control") == "public, max-age=31536000, immutable")
        try tree.dir.write(".secret", "hidden")
        #expect(try get("/.secret").status == 404)
        let post = try ServerTestClient.request(port: port, "POST", "/catalog.json")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        // The token reached corpusd only as a header; neither log holds it.
        let nginxLog = (try? String(contentsOfFile: runtime.url("access.log"), encoding: .utf8)) ?? ""
        #expect(nginxLog.contains("\"GET \(gated)\" 206"))
        #expect(!nginxLog.contains(good) && !corpusd.stderr.contains(good))
    }
}
