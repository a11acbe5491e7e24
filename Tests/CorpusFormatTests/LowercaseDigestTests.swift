import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Every digest a signed document holds is 64 lower-case hex digits, checked where it decodes:
/// the manifest, catalog and embedder validators used to accept upper case (or, for the content
/// digest, anything), while the downloader, the installed-folder check and `corpus verify`
/// compared the text exactly, so one document passed one check and failed the next.
@Suite struct LowercaseDigestTests {
    static let lower = String(repeating: "ab", count: 32)
    static let upper = String(repeating: "AB", count: 32)

    static let manifest = #"{"content_digest":"\#(lower)","description":"","documents":1,"embedder":{"dimension":16,"encoding":"int8","id":"e"},"format":1,"id":"sea","language":"en","license":"","members":{"pack.sqlite":{"sha256":"\#(lower)","size":1},"vectors.bin":{"sha256":"\#(lower)","size":2}},"passages":1,"title":"t","version":"1"}"#

    static let catalog = #"{"corpora":[{"access":"free","bundle":{"path":"bundles/\#(lower).corpus.zip","sha256":"\#(lower)","size":10},"bundled":false,"content_digest":"\#(lower)","description":"d","documents":1,"embedder":{"dimension":16,"encoding":"int8","id":"e"},"id":"a","language":"en","license":"l","passages":2,"title":"A","version":"1"}],"expires":"2026-12-29T00:00:00Z","format":1,"id":"demo","issued":"2026-11-29T00:00:00Z","root_version":1,"title":"Demo","version":7}"#

    static func refusal(_ what: String, at path: String) -> FormatError {
        .malformed(what: what, reason: "not a SHA-256 digest (64 lower-case hex digits) at \(path)")
    }

    @Test func wellFormedDigestsDecode() throws {
        #expect(try Manifest.decode(Data(Self.manifest.utf8)).id == "sea")
        #expect(try Catalog.decode(Data(Self.catalog.utf8)).corpora.count == 1)
    }

    @Test func aManifestMemberHashInUpperCaseIsRefused() {
        let text = Self.manifest.replacingOccurrences(of: #""pack.sqlite":{"sha256":"\#(Self.lower)""#, with: #""pack.sqlite":{"sha256":"\#(Self.upper)""#)
        #expect(throws: Self.refusal("corpus manifest", at: "members.pack.sqlite.sha256")) { try Manifest.decode(Data(text.utf8)) }
    }

    @Test func aManifestEmbedderDigestInUpperCaseIsRefused() {
        let text = Self.manifest.replacingOccurrences(of: #""embedder":{"dimension""#, with: #""embedder":{"digest":"\#(Self.upper)","dimension""#)
        #expect(throws: Self.refusal("corpus manifest", at: "embedder.digest")) { try Manifest.decode(Data(text.utf8)) }
    }

    @Test(arguments: ["cd", "../../etc", String(repeating: "AB", count: 32), String(repeating: "g", count: 64)])
    func aManifestContentDigestThatIsNotADigestIsRefused(_ value: String) {
        let text = Self.manifest.replacingOccurrences(of: #""content_digest":"\#(Self.lower)""#, with: #""content_digest":"\#(value)""#)
        #expect(throws: Self.refusal("corpus manifest", at: "content_digest")) { try Manifest.decode(Data(text.utf8)) }
    }

    @Test func aCatalogBundleHashInUpperCaseIsRefused() {
        let text = Self.catalog.replacingOccurrences(of: #""sha256":"\#(Self.lower)""#, with: #""sha256":"\#(Self.upper)""#)
        #expect(throws: Self.refusal("catalog", at: "corpora.0.bundle.sha256")) { try Catalog.decode(Data(text.utf8)) }
    }

    @Test func aCatalogContentDigestThatIsNotADigestIsRefused() {
        let text = Self.catalog.replacingOccurrences(of: #""content_digest":"\#(Self.lower)""#, with: #""content_digest":"cd""#)
        #expect(throws: Self.refusal("catalog", at: "corpora.0.content_digest")) { try Catalog.decode(Data(text.utf8)) }
    }

    /// A bundle signed with an upper-case member hash used to extract (the reader compared
    /// case-insensitively) and then fail `corpus verify` (which compared exactly). It is refused
    /// before anything is written.
    @Test func aSignedBundleWithAnUpperCaseMemberHashIsRefusedBeforeExtracting() throws {
        let f = try BundleFixture()
        var entries = try f.craftedEntries()
        let manifest = String(decoding: entries[0].stored, as: UTF8.self)
        let packHash = SHA256.hex(try f.packBytes)
        let edited = Data(manifest.replacingOccurrences(of: packHash, with: packHash.uppercased()).utf8)
        entries[0].stored = [UInt8](edited)
        let signature = try f.key.sign(edited, trustedComment: f.manifest.trustedComment)
        entries[1].stored = Array(signature.fileText.utf8)
        let (error, unchanged) = f.attemptExtract(try f.writeCrafted(entries))
        #expect(error as? FormatError == Self.refusal("corpus manifest", at: "members.pack.sqlite.sha256"))
        #expect(unchanged)
    }
}
