import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// security-cases.md, "Entitlement tokens", as a client meets them: 401 for tokens that are no
/// good, 403 for good tokens that do not grant the bundle; public files stay public.
@Suite struct ServerGatingTests {
    static let challenge = "Bearer realm=\"corpus\", error=\"invalid_token\""

    @Test func entitledBundlesNeedAValidCoveringToken() throws {
        let f = try ServerFixture()
        let t = f.tree
        let other = try SecretKey.generate()
        let impostor = try SecretKey(keyID: t.entitlementKey.keyID, seed: Ed25519.randomSeed())
        let good = try t.token(corpora: ["paid-atlas"])
        let kid = t.entitlementKey.keyID.description
        let payload = String(good.split(separator: ".")[1])
        let none = Base64URL.encode(Array(#"{"alg":"none","kid":"\#(kid)"}"#.utf8)) + "." + payload + "."
        let hs256 = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#.utf8)) + "." + payload + "." + Base64URL.encode([UInt8](repeating: 1, count: 32))

        let unauthorized: [(String, [String: String])] = [
            ("no token", [:]),
            ("basic auth", ["Authorization": "Basic dXNlcjpwYXNz"]),
            ("empty bearer", ["Authorization": "Bearer "]),
            ("garbage", f.bearer("not-a-token")),
            ("alg none", f.bearer(none)),
            ("HS256", f.bearer(hs256)),
            ("unknown kid", f.bearer(try t.token(corpora: ["paid-atlas"], key: other))),
            ("wrong key, our kid", f.bearer(try t.token(corpora: ["paid-atlas"], key: impostor))),
            ("expired", f.bearer(try t.token(corpora: ["paid-atlas"], lifetime: 600, now: Date().addingTimeInterval(-3600)))),
            ("not yet valid", f.bearer(try t.token(corpora: ["paid-atlas"], now: Date().addingTimeInterval(3600)))),
            ("skew beyond leeway", f.bearer(try t.token(corpora: ["paid-atlas"], now: Date().addingTimeInterval(300)))),
        ]
        for (name, headers) in unauthorized {
            let r = try f.get(f.bundle("paid-atlas"), headers: headers)
            #expect(r.status == 401, "\(name)")
            #expect(r.header("WWW-Authenticate") == Self.challenge, "\(name)")
            #expect(!r.body.contains(t.bundleBytes["paid-atlas"]!.prefix(64)), "\(name)")
        }
        let forbidden: [(String, String)] = [
            ("other audience", try t.token(corpora: ["paid-atlas"], audience: "another-catalog")),
            ("other corpus", try t.token(corpora: ["paid-notes"])),
            ("other tier", try t.token(tiers: ["silver"])),
            ("free corpus only", try t.token(corpora: ["free-guide"])),
        ]
        for (name, token) in forbidden {
            let r = try f.get(f.bundle("paid-atlas"), headers: f.bearer(token))
            #expect(r.status == 403, "\(name)")
            #expect(r.header("WWW-Authenticate")?.contains("insufficient_scope") == true, "\(name)")
        }
        for (name, token) in [("by id", good), ("by tier", try t.token(tiers: ["gold"])), ("within skew", try t.token(corpora: ["paid-atlas"], now: Date().addingTimeInterval(20)))] {
            let r = try f.get(f.bundle("paid-atlas"), headers: f.bearer(token))
            #expect(r.status == 200, "\(name)")
            #expect(r.body == t.bundleBytes["paid-atlas"], "\(name)")
            // Never stored by a shared cache: only the token holder may see it.
            #expect(r.header("Cache-Control") == "private, max-age=31536000, immutable", "\(name)")
            #expect(r.header("Vary") == "Authorization", "\(name)")
        }
        // A granted Range request (resuming a download) works the same.
        let ranged = try f.get(f.bundle("paid-atlas"), headers: ["Authorization": "Bearer \(good)", "Range": "bytes=100-"])
        #expect(ranged.status == 206 && ranged.body == t.bundleBytes["paid-atlas"]!.subdata(in: 100..<20_000))
        #expect(f.eventually { f.server.metrics.render().contains("corpusd_gated_refusals_total{status=\"401\"} \(unauthorized.count)") })
        #expect(f.server.metrics.render().contains("corpusd_gated_refusals_total{status=\"403\"} \(forbidden.count)"))
    }

    @Test func publicFilesNeedNoToken() throws {
        let f = try ServerFixture()
        for target in ["/", "/catalog.json", "/catalogs/1.json", "/catalogs/1.json.minisig", "/keys/root.pub", "/keys/root-1.json", f.bundle("free-guide")] {
            #expect(try f.get(target).status == 200, "\(target)")
        }
        // A bad token on a public file changes nothing: it is not even looked at.
        #expect(try f.get(f.bundle("free-guide"), headers: f.bearer("garbage")).status == 200)
    }

    @Test func bundlesNoCatalogListsAreNotServed() throws {
        let f = try ServerFixture()
        let stray = Data("stray upload".utf8)
        let path = TreeLayout.bundlePath(sha256: SHA256.hex(stray))
        try f.tree.dir.write(path, stray)
        #expect(try f.get("/" + path).status == 404)
        #expect(try f.get("/" + path, headers: f.bearer(try f.tree.token(corpora: ["paid-atlas"]))).status == 404)
    }

    @Test func aCatalogCanGateBundlesOutsideTheBundlesFolder() throws {
        let f = try ServerFixture()
        try f.tree.dir.write("files/notes.zip", f.tree.bundleBytes["paid-notes"]!)
        try f.tree.republish { entries in
            for i in entries.indices where entries[i].id == "paid-notes" { entries[i].bundle.path = "files/notes.zip" }
        }
        #expect(f.eventually { (try? f.get("/files/notes.zip").status) == 401 })
        let r = try f.get("/files/notes.zip", headers: f.bearer(try f.tree.token(corpora: ["paid-notes"])))
        #expect(r.status == 200 && r.header("Cache-Control") == "private, max-age=31536000, immutable")
    }

    @Test func withoutAnEntitlementKeyEntitledBundlesAreRefused() throws {
        let f = try ServerFixture(pinKey: false)
        let r = try f.get(f.bundle("paid-atlas"), headers: f.bearer(try f.tree.token(corpora: ["paid-atlas"])))
        #expect(r.status == 403)
        #expect(r.text.contains("no entitlement key"))
        #expect(try f.get(f.bundle("free-guide")).status == 200)
    }

    @Test func authEndpointAnswersForNginx() throws {
        let f = try ServerFixture()
        let t = f.tree
        let good = try t.token(corpora: ["paid-atlas"])
        let encodedPath = "%2F" + t.bundlePaths["paid-atlas"]!.replacingOccurrences(of: "/", with: "%2F")
        let cases: [(String, String, [String: String], Int)] = [
            ("free bundle", "/_auth", ["X-Original-URI": f.bundle("free-guide")], 204),
            ("catalog", "/_auth", ["X-Original-URI": "/catalog.json"], 204),
            ("gated, no token", "/_auth", ["X-Original-URI": f.bundle("paid-atlas")], 401),
            ("gated, expired", "/_auth", ["X-Original-URI": f.bundle("paid-atlas"),
                                          "Authorization": "Bearer " + (try t.token(corpora: ["paid-atlas"], lifetime: 60, now: Date().addingTimeInterval(-7200)))], 401),
            ("gated, other corpus", "/_auth", ["X-Original-URI": f.bundle("paid-atlas"), "Authorization": "Bearer " + (try t.token(corpora: ["paid-notes"]))], 403),
            ("gated, granted", "/_auth", ["X-Original-URI": f.bundle("paid-atlas"), "Authorization": "Bearer \(good)"], 204),
            ("gated with query string", "/_auth", ["X-Original-URI": f.bundle("paid-atlas") + "?x=1", "Authorization": "Bearer \(good)"], 204),
            ("path parameter", "/_auth?path=\(encodedPath)", ["Authorization": "Bearer \(good)"], 204),
            ("path parameter, no token", "/_auth?path=\(encodedPath)", [:], 401),
            ("traversal", "/_auth", ["X-Original-URI": "/bundles/../" + t.bundlePaths["paid-atlas"]!], 403),
            ("encoded traversal", "/_auth", ["X-Original-URI": "/bundles/%2e%2e/" + t.bundlePaths["paid-atlas"]!], 403),
            ("unlisted bundle", "/_auth", ["X-Original-URI": "/bundles/" + String(repeating: "0", count: 64) + ".corpus.zip"], 403),
            ("no path", "/_auth", [:], 400),
        ]
        for (name, target, headers, status) in cases {
            let r = try f.get(target, headers: headers)
            #expect(r.status == status, "\(name)")
            if status == 401 { #expect(r.header("WWW-Authenticate") == Self.challenge, "\(name)") }
        }
        #expect(try f.get("/_auth", headers: ["X-Original-URI": f.bundle("paid-atlas"), "Authorization": "Bearer \(good)"]).header("X-Corpus-Cache-Control")
                == "private, max-age=31536000, immutable")
        #expect(try f.get("/_auth", headers: ["X-Original-URI": f.bundle("free-guide")]).header("X-Corpus-Cache-Control")
                == "public, max-age=31536000, immutable")
    }

    @Test func tokensNeverReachTheAccessLog() throws {
        let f = try ServerFixture()
        let token = try f.tree.token(corpora: ["paid-atlas"])
        let bad = try f.tree.token(corpora: ["paid-notes"])
        _ = try f.get(f.bundle("paid-atlas"), headers: f.bearer(token))
        _ = try f.get(f.bundle("paid-atlas"), headers: f.bearer(bad))
        _ = try f.get(f.bundle("paid-atlas") + "?access_token=\(token)")
        _ = try f.get("/_auth", headers: ["X-Original-URI": f.bundle("paid-atlas") + "?token=\(token)", "Authorization": "Bearer \(token)"])
        #expect(f.eventually { f.logs.all.count == 4 })
        let lines = f.logs.lines
        #expect(lines.contains { $0.contains("\"GET \(f.bundle("paid-atlas"))\" 200 20000") }, "\(lines)")
        #expect(lines.contains { $0.contains("\"GET \(f.bundle("paid-atlas"))\" 403") }, "\(lines)")
        for line in lines {
            #expect(line.hasPrefix("127.0.0.1 \"GET /"))
            for secret in [token, bad] + token.split(separator: ".").map(String.init) + bad.split(separator: ".").map(String.init) where secret.count > 8 {
                #expect(!line.contains(secret), "token in log: \(line)")
            }
        }
    }

    @Test func aNewCatalogChangesWhatIsGated() throws {
        let f = try ServerFixture()
        #expect(try f.get(f.bundle("free-guide")).status == 200)
        // Catalog 2 makes free-guide entitled (tier gold) and drops paid-notes.
        try f.tree.republish { entries in
            entries = entries.filter { $0.id != "paid-notes" }.map { e in
                var e = e
                if e.id == "free-guide" { e.access = .entitled; e.tier = "gold" }
                return e
            }
        }
        #expect(f.eventually { (try? f.get(f.bundle("free-guide")).status) == 401 })
        #expect(try f.get(f.bundle("free-guide"), headers: f.bearer(try f.tree.token(tiers: ["gold"]))).status == 200)
        // A client still reading catalog 1 can finish: paid-notes's bundle stays gated as catalog 1 said.
        #expect(try f.get(f.bundle("paid-notes")).status == 401)
        #expect(try f.get(f.bundle("paid-notes"), headers: f.bearer(try f.tree.token(corpora: ["paid-notes"]))).status == 200)
    }
}
