import Testing
import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
@testable import CorpusSync
@testable import CorpusClientCLI

/// Every `corpus --json` shape (docs/cli.md), encoded from its result type and compared with the
/// exact bytes: keys sorted, slashes unescaped, `null` where the shape promises the key, the key
/// left out where it is optional. Each is also the byte-for-byte output `JSONSerialization` gave.
@Suite struct ClientJSONShapeTests {
    typealias F = JSONShapeFixtures

    static let shapes: [(name: String, json: String, expected: String)] = [
        ("remote add", JSONOutput.string(RemoteAddCommand.Added(remote: .init(name: "main", url: "http://h/t", mirrors: ["http://m/t"], keyID: "EEF5265B4ED4E2ED"))),
         #"{"remote":{"key_id":"EEF5265B4ED4E2ED","mirrors":["http://m/t"],"name":"main","url":"http://h/t"}}"#),
        ("remote list", JSONOutput.string(RemoteListCommand.Listing(remotes: [.init(name: "main", url: "http://h", mirrors: []), .init(name: "b", url: "https://b/x", mirrors: ["http://m"])])),
         #"{"remotes":[{"mirrors":[],"name":"main","url":"http://h"},{"mirrors":["http://m"],"name":"b","url":"https://b/x"}]}"#),
        ("remote remove", JSONOutput.string(RemoteRemoveCommand.Removed(removed: "main")), #"{"removed":"main"}"#),
        ("catalog", JSONOutput.string(CatalogCommand.Listing(corpora: [
            CatalogRow(OfferedCorpus(remote: "main", entry: F.entry("tides", bundled: true)), installed: CorpusVersion("1"), locked: false),
            CatalogRow(OfferedCorpus(remote: "main", entry: F.entry("atlas", access: .entitled, tier: "pro")), installed: nil, locked: true),
         ])),
         #"{"corpora":[{"access":"free","bundled":true,"catalog":"main","description":"tide tables / streams","documents":3,"id":"tides","installed":true,"installed_version":"1","language":"en","license":"CC0","locked":false,"passages":22,"size":2920,"title":"Tides & streams","update_available":true,"version":"2"},"#
         + #"{"access":"entitled","bundled":false,"catalog":"main","description":"tide tables / streams","documents":3,"id":"atlas","installed":false,"language":"en","license":"CC0","locked":true,"passages":22,"size":2920,"tier":"pro","title":"Tides & streams","update_available":false,"version":"2"}]}"#),
        ("show", JSONOutput.string(ShowCommand.Shown(corpus: CatalogRow(OfferedCorpus(remote: "main", entry: F.entry("tides", version: "1")), installed: CorpusVersion("1"), locked: false))),
         #"{"corpus":{"access":"free","bundled":false,"catalog":"main","description":"tide tables / streams","documents":3,"id":"tides","installed":true,"installed_version":"1","language":"en","license":"CC0","locked":false,"passages":22,"size":2920,"title":"Tides & streams","update_available":false,"version":"1"}}"#),
        ("install", JSONOutput.string(OutcomeResults(OperationReport(outcomes: [
            CorpusClient.Outcome(name: "main/tides", kind: .updated, version: "2", previousVersion: "1"),
            CorpusClient.Outcome(name: "main/knots", kind: .failed, error: .entitlementRequired(file: "knots")),
            CorpusClient.Outcome(name: "main/base", kind: .unchanged, version: "1"),
         ], unrefreshed: []))),
         #"{"changed":1,"failed":1,"results":[{"corpus":"main/tides","previous_version":"1","status":"updated","version":"2"},"#
         + #"{"corpus":"main/knots","error":{"code":"entitlement","hint":"get a token from the publisher and pass it with --token, CORPUS_TOKEN or corpus login","message":"knots needs an entitlement token and none was accepted"},"status":"failed"},"#
         + #"{"corpus":"main/base","status":"unchanged","version":"1"}]}"#),
        ("sync, by delta and with a delta not used", JSONOutput.string(OutcomeResults(OperationReport(outcomes: [
            CorpusClient.Outcome(name: "main/tides", kind: .updated, version: "2", previousVersion: "1", via: .delta, bytesDownloaded: 3236),
            CorpusClient.Outcome(name: "main/knots", kind: .updated, version: "3", previousVersion: "2", via: .full, bytesDownloaded: 9000,
                                 deltaError: .delta(corpus: "main/knots", cause: .baseMismatch(reason: "row 4 holds passage a, not b"))),
         ], unrefreshed: []))),
         #"{"changed":2,"failed":0,"results":[{"bytes_downloaded":3236,"corpus":"main/tides","previous_version":"1","status":"updated","version":"2","via":"delta"},"#
         + #"{"bytes_downloaded":9000,"corpus":"main/knots","delta_error":{"code":"delta","hint":"nothing of it was kept; the full bundle is installed instead (corpus sync)","message":"refused the delta: main/knots: the delta names what the installed version does not have: row 4 holds passage a, not b"},"previous_version":"2","status":"updated","version":"3","via":"full"}]}"#),
        ("sync, with a catalog that could not be refreshed", JSONOutput.string(OutcomeResults(OperationReport(outcomes: [
            CorpusClient.Outcome(name: "main/tides", kind: .unchanged, version: "2"),
         ], unrefreshed: [UnrefreshedCatalog(remote: "main", error: .network(after: 3, last: .network(reason: "Connection refused")), catalogVersion: 4,
                                             signed: "2026-11-30T09:00:00Z", fetched: Date(timeIntervalSince1970: 1_764_493_200))]))),
         #"{"changed":0,"failed":0,"results":[{"corpus":"main/tides","status":"unchanged","version":"2"}],"unrefreshed":[{"catalog_version":4,"#
         + #""error":{"code":"network","hint":"check the connection and the catalog URL, or add a mirror (corpus remote add … --mirror URL)","#
         + #""message":"could not refresh catalog main: unavailable after 3 attempts: network error: Connection refused; used catalog version 4 as accepted earlier, signed 2026-11-30T09:00:00Z, last fetched 2025-11-30T09:00:00Z"},"#
         + #""fetched":"2025-11-30T09:00:00Z","remote":"main","signed":"2026-11-30T09:00:00Z"}]}"#),
        ("import", JSONOutput.string(ImportCommand.Imported(imported: .init(id: "tides", version: "1", catalog: "local"))),
         #"{"imported":{"catalog":"local","id":"tides","version":"1"}}"#),
        ("remove", JSONOutput.string(RemoveCommand.Removed(removed: ["main/knots"], error: ErrorBody(ClientErrors.report(SyncError.notInstalled(name: "nope"))))),
         #"{"error":{"code":"not-found","hint":"see what is offered with corpus catalog and what is installed with corpus list","message":"nope is not installed"},"removed":["main/knots"]}"#),
        ("remove, all removed", JSONOutput.string(RemoveCommand.Removed(removed: [], error: nil)), #"{"removed":[]}"#),
        ("list", JSONOutput.string(ListCommand.Listing(installed: [.init(id: "tides", version: "1", catalog: "main", bundled: true, size: 42698, title: "Tides",
                                                                       documents: 1, passages: 2, installed: "2026-11-30T09:00:00Z")])),
         #"{"installed":[{"bundled":true,"catalog":"main","documents":1,"id":"tides","installed":"2026-11-30T09:00:00Z","passages":2,"size":42698,"title":"Tides","version":"1"}]}"#),
        ("search", JSONOutput.string(SearchResponse(query: "tidewater later/earlier", tookMs: 12,
            skipped: [.init(corpus: "main/knots", error: .init(code: "unsafe-pack", message: "refused: x", hint: "repair it with: corpus install main/knots"))],
            hits: [.init(Hit(corpus: "tides", remote: "main", version: "1", passageID: "680c", document: "guide/a.md", documentTitle: "Tides",
                             section: "Springs", text: "High water \u{1b}[31m.\n", snippet: "«High» water", score: 0.03278688524590164, lexicalRank: 1, vectorRank: nil))])),
         #"{"hits":[{"catalog":"main","corpus":"tides","document":"guide/a.md","passage":"680c","ranks":{"lexical":1,"vector":null},"score":0.03278688524590164,"section":"Springs","snippet":"«High» water","text":"High water \u001b[31m.\n","title":"Tides","version":"1"}],"#
         + #""query":"tidewater later/earlier","skipped":[{"corpus":"main/knots","error":{"code":"unsafe-pack","hint":"repair it with: corpus install main/knots","message":"refused: x"}}],"took_ms":12}"#),
        ("verify", JSONOutput.string(VerifyCommand.Verified(verified: [
            .init(corpus: "main/knots", ok: false, error: ErrorBody(code: "integrity", message: "vectors.bin: 10 bytes, the signed catalog says 452", hint: "repair it with: corpus install main/knots")),
            .init(corpus: "main/tides", ok: true, error: nil),
            .init(corpus: "main/wind", ok: false, error: nil, removed: true)])),
         #"{"verified":[{"corpus":"main/knots","error":{"code":"integrity","hint":"repair it with: corpus install main/knots","message":"vectors.bin: 10 bytes, the signed catalog says 452"},"ok":false},{"corpus":"main/tides","ok":true},{"corpus":"main/wind","ok":false,"removed":true}]}"#),
        ("gc", JSONOutput.string(GCCommand.Result(CorpusClient.GCReport(removedVersions: ["main/tides@1"], removedPartials: [], removedStaging: ["123.4.trash"],
                                                                       removedEmbedders: ["m/abc"], bytesFreed: 42698))),
         #"{"bytes_freed":42698,"removed_embedders":["m/abc"],"removed_partials":[],"removed_staging":["123.4.trash"],"removed_versions":["main/tides@1"]}"#),
        ("status", JSONOutput.string(StatusCommand.Result(home: "/h/corpus", catalogs: [
            .init(name: "main", url: "http://h", version: 3, expires: "2026-12-31T09:00:00Z", fresh: true, error: nil),
            .init(name: "down", url: "http://d", version: nil, expires: nil, fresh: false, error: "unavailable after 3 attempts: refused")],
            installed: 2, updates: [.init(corpus: "main/tides", installed: "1", available: "2")], importsUsed: 1, importLimit: Nullable(nil), token: false)),
         #"{"catalogs":[{"expires":"2026-12-31T09:00:00Z","fresh":true,"name":"main","url":"http://h","version":3},{"error":"unavailable after 3 attempts: refused","fresh":false,"name":"down","url":"http://d"}],"#
         + #""home":"/h/corpus","import_limit":null,"imports_used":1,"installed":2,"token":false,"updates":[{"available":"2","corpus":"main/tides","installed":"1"}]}"#),
        ("status with a limit", JSONOutput.string(StatusCommand.Result(home: "/h", catalogs: [], installed: 0, updates: [], importsUsed: 0, importLimit: Nullable(5), token: true)),
         #"{"catalogs":[],"home":"/h","import_limit":5,"imports_used":0,"installed":0,"token":true,"updates":[]}"#),
        ("login", JSONOutput.string(LoginCommand.Stored(token: .init(EntitlementClaims(issuer: "corpusd", subject: "u", audience: ["probe"], issuedAt: nil, notBefore: nil,
                                                                                        expiresAt: F.day, tokenID: "j", corpora: [], tiers: ["pro"], importLimit: nil)))),
         #"{"token":{"corpora":[],"expires":"\#(F.dayText)","import_limit":null,"subject":"u","tiers":["pro"]}}"#),
        ("logout", JSONOutput.string(LogoutCommand.Removed(token: Nullable(nil))), #"{"token":null}"#),
        ("refusal", JSONOutput.string(RefusalOutput(ClientErrors.report(UsageError.unknownCommand("frob")))),
         #"{"error":{"code":"usage","hint":"run with --help to see the commands and their options","message":"unknown command \"frob\""}}"#),
        ("progress: download", JSONOutput.string(ProgressLine(.downloading(name: "main/tides", DownloadProgress(bytesDone: 1024, total: 2920, bytesPerSecond: 5000.7, eta: 0.5, source: "http://h")))),
         #"{"bytes":1024,"corpus":"main/tides","eta_s":0.5,"event":"download","rate":5000,"total":2920}"#),
        ("progress: download without a rate yet", JSONOutput.string(ProgressLine(.downloading(name: "main/tides", DownloadProgress(bytesDone: 0, total: 2920, bytesPerSecond: 0, eta: nil, source: "http://h")))),
         #"{"bytes":0,"corpus":"main/tides","event":"download","rate":0,"total":2920}"#),
        ("progress: verify", JSONOutput.string(ProgressLine(.verifying(name: "main/tides"))), #"{"corpus":"main/tides","event":"verify"}"#),
        ("progress: installed", JSONOutput.string(ProgressLine(.installed(name: "main/tides", version: "2"))), #"{"corpus":"main/tides","event":"installed","version":"2"}"#),
        ("documents", JSONOutput.string(DocumentList(documents: [
            .init(path: "pages/p1.md", title: "Tides", sections: [.init(title: "", passage: "p1-0"), .init(title: "Springs", passage: "p1-2")], passages: 3,
                  time: "2026-11-30T09:00:00Z", group: "example.org"),
            .init(path: "ch2", title: "Two", sections: [.init(title: "", passage: "c-9")], passages: 1, time: nil, group: nil),
         ], next: "ch3")),
         #"{"documents":[{"group":"example.org","passages":3,"path":"pages/p1.md","sections":[{"passage":"p1-0","title":""},{"passage":"p1-2","title":"Springs"}],"time":"2026-11-30T09:00:00Z","title":"Tides"},"#
         + #"{"passages":1,"path":"ch2","sections":[{"passage":"c-9","title":""}],"title":"Two"}],"next":"ch3"}"#),
        ("read", JSONOutput.string(DocumentText(document: "ch2", title: "Two", sections: [
            .init(title: "Springs", text: "é b\n\nc", passages: [.init(id: "a", start: 0, end: 3), .init(id: "b", start: 5, end: 6)], continues: true),
            .init(title: "Neaps", text: "d", passages: [.init(id: "c", start: 0, end: 1)]),
         ], next: nil)),
         #"{"document":"ch2","sections":[{"continues":true,"passages":[{"end":3,"id":"a","start":0},{"end":6,"id":"b","start":5}],"text":"é b\n\nc","title":"Springs"},"#
         + #"{"passages":[{"end":1,"id":"c","start":0}],"text":"d","title":"Neaps"}],"title":"Two"}"#),
    ]

    @Test(arguments: shapes)
    func shape(_ c: (name: String, json: String, expected: String)) throws {
        #expect(c.json == c.expected, "\(c.name)")
        #expect(try F.serializationBytes(c.json) == c.json, "\(c.name): not the bytes JSONSerialization writes")
    }
}
