import Testing
import Foundation
import CorpusCLIKit
import CorpusFormat
@testable import CorpusSync
@testable import CorpusPublisher
@testable import CorpusMirror
@testable import CorpusServerCLI

/// Every `corpusd --json` shape, encoded from its result type and compared with the exact bytes
/// (which are also what `JSONSerialization` wrote for the same values).
@Suite struct ServerJSONShapeTests {
    typealias F = JSONShapeFixtures
    static let bundle = "bundles/\(String(repeating: "a", count: 64)).corpus.zip"
    static let warning = TextWarning(owner: "corpus tides, document a.md", field: "text", text: "High water \u{1b}[31mlater/earlier.")
    static let catalog = Catalog(id: "probe", title: "Probe", version: 3, issued: F.day, expires: F.day, rootVersion: 1,
                                 corpora: [F.entry("tides")])

    static let timestamp = TimestampDocument(version: 7, issued: F.day, expires: F.day,
                                             catalog: .init(id: "probe", version: 3, path: "catalogs/3.json", digest: SHA256Digest(bytes: [UInt8](repeating: 1, count: 32)), size: 10))

    static let shapes: [(name: String, json: String, expected: String)] = [
        ("keygen", JSONOutput.string(KeygenCommand.Written(key: "/k/x.key", publicKey: "/k/x.pub", keyID: "98699569EDD7EB9A")),
         #"{"key":"/k/x.key","key_id":"98699569EDD7EB9A","public_key":"/k/x.pub"}"#),
        ("build", JSONOutput.string(BuildCommand.Built(bundle: "/w/tides.corpus.zip", id: "tides", version: "1", documents: 2, passages: 2, size: 3735,
                                                       contentDigest: "189a",
                                                       embedder: BuildCommand.EmbedderEntry(EmbedderInfo(id: "all-MiniLM-L6-v2", dimension: 384, encoding: "int8",
                                                                                                         modelDigest: SHA256Digest(hex: String(repeating: "b", count: 64))!)),
                                                       imported: nil,
                                                       skipped: [SkippedEntry(SkippedFile(path: "bad.bin", reason: "unsupported file type"))],
                                                       warnings: [WarningEntry(warning)])),
         #"{"bundle":"/w/tides.corpus.zip","content_digest":"189a","documents":2,"embedder":{"digest":"\#(String(repeating: "b", count: 64))","dimension":384,"id":"all-MiniLM-L6-v2"},"id":"tides","passages":2,"size":3735,"skipped":[{"path":"bad.bin","reason":"unsupported file type"}],"version":"1","#
         + #""warnings":[{"field":"text","owner":"corpus tides, document a.md","text":"High water \\x1b[31mlater/earlier."}]}"#),
        ("build --from", JSONOutput.string(BuildCommand.Built(bundle: "/w/tides.corpus.zip", id: "tides", version: "1", documents: 2, passages: 2, size: 3735,
                                                              contentDigest: "189a",
                                                              embedder: BuildCommand.EmbedderEntry(EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8")),
                                                              imported: BuildCommand.ImportEntry(ImportReport(format: .corpuskit, vectors: .embedded(sourceModel: "arctic"),
                                                                                                              bundled: true, notes: ["de-overlapped"])),
                                                              skipped: [], warnings: [])),
         #"{"bundle":"/w/tides.corpus.zip","content_digest":"189a","documents":2,"embedder":{"dimension":384,"id":"hash-uni-bi-384-v1"},"id":"tides","#
         + #""import":{"bundled":true,"from":"corpuskit","notes":["de-overlapped"],"source_vectors":"arctic","vectors":"embedded"},"passages":2,"size":3735,"skipped":[],"version":"1","warnings":[]}"#),
        ("embed", JSONOutput.string(EmbedCommand.Vectors(vectors: [[0.5, -0.25], [1, 0]])), #"{"vectors":[[0.5,-0.25],[1,0]]}"#),
        ("build: ingested", JSONOutput.string(BuildEventLine(.ingested(documents: 2, skipped: 1))), #"{"documents":2,"event":"ingested","skipped":1}"#),
        ("build: split", JSONOutput.string(BuildEventLine(.split(passages: 2))), #"{"event":"split","passages":2}"#),
        ("build: packed", JSONOutput.string(BuildEventLine(.packed)), #"{"event":"packed"}"#),
        ("build: bundled", JSONOutput.string(BuildEventLine(.bundled(bytes: 3735))), #"{"event":"bundled","size":3735}"#),
        ("publish", JSONOutput.string(PublishCommand.Published(PublishSummary(catalog: catalog, built: ["tides"], reused: ["knots"], removed: [bundle],
                                                                              createdRootKey: false, warnings: [warning], timestamp: nil,
                                                                              notices: [.timestampNotUpdated(rootVersion: 2, timestampKeys: ["18DF761883CA543E"])]))),
         #"{"built":["tides"],"catalog":"probe","corpora":[{"bundle":"\#(bundle)","deltas":[],"id":"tides","size":2920,"version":"2"}],"expires":"\#(F.dayText)","files_hashed":0,"#
         + #""notices":[{"code":"timestamp-not-updated","message":"timestamp.json was not updated (no timestamp key of root 2 was given: 18DF761883CA543E); run corpusd timestamp PUBLIC_DIR --key TIMESTAMP_KEY, or publish with --timestamp-key"}],"#
         + #""removed":["\#(bundle)"],"reused":["knots"],"root_version":1,"timestamp":null,"version":3,"#
         + #""warnings":[{"field":"text","owner":"corpus tides, document a.md","text":"High water \\x1b[31mlater/earlier."}]}"#),
        ("publish, single key", JSONOutput.string(PublishCommand.Published(PublishSummary(catalog: catalog, built: [], reused: [], removed: [], createdRootKey: true, warnings: [],
                                                                                          timestamp: Self.timestamp, notices: [.oneKeyHoldsEveryRole(keyID: "EEF5265B4ED4E2ED")]))),
         #"{"built":[],"catalog":"probe","corpora":[{"bundle":"\#(bundle)","deltas":[],"id":"tides","size":2920,"version":"2"}],"expires":"\#(F.dayText)","files_hashed":0,"#
         + #""notices":[{"code":"single-key","message":"\#(KeyNotice.oneKeyHoldsEveryRole(keyID: "EEF5265B4ED4E2ED").message)"}],"#
         + #""removed":[],"reused":[],"root_version":1,"timestamp":{"catalog_version":3,"expires":"\#(F.dayText)","version":7},"version":3,"warnings":[]}"#),
        ("timestamp", JSONOutput.string(TimestampSigned(Self.timestamp)), #"{"catalog_version":3,"expires":"\#(F.dayText)","version":7}"#),
        ("root draft", JSONOutput.string(RootDraftCommand.Drafted(path: "root-2.json", rootVersion: 2, expires: F.dayText,
                                                                  needs: [.init(rootVersion: 1, threshold: 1, keys: ["EEF5265B4ED4E2ED"])])),
         #"{"expires":"\#(F.dayText)","needs":[{"keys":["EEF5265B4ED4E2ED"],"root_version":1,"threshold":1}],"path":"root-2.json","root_version":2}"#),
        ("root sign", JSONOutput.string(RootSignCommand.SignedOut(RootCeremony.Signed(path: "root-2.json.EEF5265B4ED4E2ED.minisig", version: 2,
                                                                                      keyID: "EEF5265B4ED4E2ED", isRootKey: false))),
         #"{"key_id":"EEF5265B4ED4E2ED","path":"root-2.json.EEF5265B4ED4E2ED.minisig","root_key":false,"root_version":2}"#),
        ("root publish", JSONOutput.string(RootPublishCommand.Installed(rootVersion: 2, signers: ["EEF5265B4ED4E2ED"], removedPublicKey: true)),
         #"{"removed_root_pub":true,"root_version":2,"signers":["EEF5265B4ED4E2ED"]}"#),
        ("publish: building", JSONOutput.string(PublishEventLine(.building(id: "tides"))), #"{"event":"building","id":"tides"}"#),
        ("publish: built", JSONOutput.string(PublishEventLine(.built(id: "tides", documents: 1, passages: 2, skipped: [SkippedFile(path: "x.bin", reason: "binary")]))),
         #"{"documents":1,"event":"built","id":"tides","passages":2,"skipped":[{"path":"x.bin","reason":"binary"}]}"#),
        ("publish: import note", JSONOutput.string(PublishEventLine(.importNote(corpus: "tides", note: "de-overlapped"))),
         #"{"event":"import_note","id":"tides","note":"de-overlapped"}"#),
        ("publish: reused", JSONOutput.string(PublishEventLine(.reused(id: "knots"))), #"{"event":"reused","id":"knots"}"#),
        ("publish: embedder fallback", JSONOutput.string(PublishEventLine(.embedderFallback(corpus: "docs", embedder: "all-MiniLM-L6-v2", fallback: "hashing-v1", reason: "no weights"))),
         #"{"embedder":"all-MiniLM-L6-v2","event":"embedder_fallback","fallback":"hashing-v1","id":"docs","reason":"no weights"}"#),
        ("publish: embedder", JSONOutput.string(PublishEventLine(.embedderPublished(id: "all-MiniLM-L6-v2", digest: "ca03", path: "embedders/x.embedder.zip", reused: false))),
         #"{"digest":"ca03","event":"embedder","id":"all-MiniLM-L6-v2","path":"embedders/x.embedder.zip","reused":false}"#),
        ("publish: delta", JSONOutput.string(PublishEventLine(.delta(id: "tides", from: "1", bytes: 3236, bundleBytes: 120263, published: true, reused: false))),
         #"{"bundle_size":120263,"event":"delta","from":"1","id":"tides","published":true,"reused":false,"size":3236}"#),
        ("publish: warning", JSONOutput.string(PublishEventLine(.textWarning(warning))),
         #"{"event":"warning","field":"text","owner":"corpus tides, document a.md","text":"High water \\x1b[31mlater/earlier."}"#),
        ("rotate-key", JSONOutput.string(RotateKeyCommand.Rotated(rootVersion: 2, keyID: "18DF761883CA543E", signedBy: "EEF5265B4ED4E2ED")),
         #"{"key_id":"18DF761883CA543E","root_version":2,"signed_by":"EEF5265B4ED4E2ED"}"#),
        ("serve", JSONOutput.string(ServeCommand.Serving(serving: "/w/public", url: "http://127.0.0.1:8080", metrics: nil)),
         #"{"serving":"/w/public","url":"http://127.0.0.1:8080"}"#),
        ("serve with a metrics listener", JSONOutput.string(ServeCommand.Serving(serving: "/p", url: "http://0.0.0.0:80", metrics: "http://127.0.0.1:9100/metrics")),
         #"{"metrics":"http://127.0.0.1:9100/metrics","serving":"/p","url":"http://0.0.0.0:80"}"#),
        ("mirror", JSONOutput.string(MirrorCommand.Result(MirrorSummary(catalog: catalog, previousVersion: nil, fetched: [bundle], fetchedBytes: 2920, present: [],
                                                                        skippedEntitled: ["knots"], removed: []))),
         #"{"catalog":"probe","expires":"\#(F.dayText)","fetched":["\#(bundle)"],"fetched_bytes":2920,"present":[],"previous_version":null,"removed":[],"skipped_entitled":["knots"],"version":3}"#),
        ("mirror: catalog", JSONOutput.string(MirrorEventLine(.catalogVerified(id: "probe", version: 3, previous: nil))),
         #"{"catalog":"probe","event":"catalog","previous_version":null,"version":3}"#),
        ("mirror: catalog again", JSONOutput.string(MirrorEventLine(.catalogVerified(id: "probe", version: 3, previous: 2))),
         #"{"catalog":"probe","event":"catalog","previous_version":2,"version":3}"#),
        ("mirror: skipped", JSONOutput.string(MirrorEventLine(.skippedEntitled(corpus: "knots"))), #"{"corpus":"knots","event":"skipped","reason":"entitled"}"#),
        ("mirror: present", JSONOutput.string(MirrorEventLine(.present(corpus: "tides", path: bundle))), #"{"bundle":"\#(bundle)","corpus":"tides","event":"present"}"#),
        ("mirror: downloaded", JSONOutput.string(MirrorEventLine(.downloaded(corpus: "tides", path: bundle, bytes: 2920))),
         #"{"bundle":"\#(bundle)","bytes":2920,"corpus":"tides","event":"downloaded"}"#),
        ("mirror: removed", JSONOutput.string(MirrorEventLine(.removed(path: bundle))), #"{"bundle":"\#(bundle)","event":"removed"}"#),
        ("token issue", JSONOutput.string(TokenCommand.Issued(token: "eyJ.x.y", aud: "probe", sub: "u", jti: "j1", expires: F.dayText, corpora: [], tiers: ["pro"], importLimit: 5)),
         #"{"aud":"probe","corpora":[],"expires":"\#(F.dayText)","import_limit":5,"jti":"j1","sub":"u","tiers":["pro"],"token":"eyJ.x.y"}"#),
        ("token issue without a limit", JSONOutput.string(TokenCommand.Issued(token: "t", aud: "probe", sub: "u", jti: "j", expires: F.dayText, corpora: ["knots"], tiers: [], importLimit: nil)),
         #"{"aud":"probe","corpora":["knots"],"expires":"\#(F.dayText)","jti":"j","sub":"u","tiers":[],"token":"t"}"#),
        ("refusal", JSONOutput.string(RefusalOutput(ServerErrors.report(PublisherError.sameKey(keyID: "18DF761883CA543E")))),
         #"{"error":{"code":"same-key","hint":"make a new key with corpusd keygen","message":"\#(PublisherError.sameKey(keyID: "18DF761883CA543E").description)"}}"#),
    ]

    @Test func mirrorDownloadProgressIsNoLine() {
        #expect(MirrorEventLine(.downloading(corpus: "tides", path: Self.bundle, DownloadProgress(bytesDone: 1, total: 2, bytesPerSecond: 1, eta: 1, source: "http://h"))) == nil)
    }

    @Test(arguments: shapes)
    func shape(_ c: (name: String, json: String, expected: String)) throws {
        #expect(c.json == c.expected, "\(c.name)")
        #expect(try F.serializationBytes(c.json) == c.json, "\(c.name): not the bytes JSONSerialization writes")
    }
}
