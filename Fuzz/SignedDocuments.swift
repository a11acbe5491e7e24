import Foundation
import CorpusFormat

/// Canonical JSON decoding of the signed and hashed documents: manifest, catalog, catalog
/// pointer, root key document, delta document, embedder manifest (docs/format.md).
///
/// The first byte picks the document; the rest is its JSON. Properties: decoding never traps,
/// and a document that decodes re-encodes to canonical bytes that decode to the same value and
/// encode to the same bytes again (what a signature over canonical bytes relies on).
func fuzzSignedDocuments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let kind = input.byte() % 7
    let json = Data(input.rest())
    switch kind {
    case 0: roundTrip(json, decode: Manifest.decode, encode: { try $0.canonicalBytes() })
    case 1: roundTrip(json, decode: Catalog.decode, encode: { try $0.canonicalBytes() })
    case 2: roundTrip(json, decode: { try CanonicalJSON.decode(CatalogPointer.self, from: $0, what: "catalog pointer") },
                      encode: { try CanonicalJSON.encode($0) })
    case 3: roundTrip(json, decode: { try CanonicalJSON.decode(RootKeyDocument.self, from: $0, what: "root key document") },
                      encode: { try CanonicalJSON.encode($0) })
        if let doc = try? CanonicalJSON.decode(RootKeyDocument.self, from: json, what: "root key document") {
            _ = try? doc.publicKey()
        }
    case 4: roundTrip(json, decode: DeltaDocument.decode, encode: { try $0.canonicalBytes() })
    case 5: roundTrip(json, decode: EmbedderManifest.decode, encode: { try $0.canonicalBytes() })
    default:
        // The generic tree every canonical encoding goes through.
        roundTrip(json, decode: { try CanonicalJSON.decode(JSONValue.self, from: $0, what: "JSON") },
                  encode: { Data(CanonicalJSON.serialize($0)) })
    }
    return 0
}

private func roundTrip<T: Equatable>(_ json: Data, decode: (Data) throws -> T, encode: (T) throws -> Data) {
    guard let value = try? decode(json) else { return }
    let canonical: Data
    do { canonical = try encode(value) } catch { fuzzAssert(false, "a decoded \(T.self) does not encode: \(error)"); return }
    let again: T
    do { again = try decode(canonical) } catch {
        fuzzAssert(false, "the canonical bytes of a decoded \(T.self) do not decode: \(error)\n\(String(decoding: canonical, as: UTF8.self))")
        return
    }
    fuzzAssert(again == value, "\(T.self) changed across a canonical round trip")
    fuzzAssert((try? encode(again)) == canonical, "\(T.self)'s canonical bytes are not stable")
}

func initializeSignedDocuments(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked(SignedDocumentSeeds.all)
    return 0
}

/// One valid document of each kind, made with the format's own initialisers.
enum SignedDocumentSeeds {
    static func all() throws -> [(String, [UInt8])] {
        let digest = SHA256Digest(bytes: [UInt8](repeating: 0xab, count: 32))
        let embedder = EmbedderInfo(id: "hashing-384", dimension: 384, encoding: "int8")
        let manifest = Manifest(id: "field-guide", version: CorpusVersion("3")!, title: "Field guide", description: "Tides \"and\" \u{1}",
                                embedder: embedder, documents: 2, passages: 9, content: digest,
                                members: ["pack.sqlite": MemberInfo(sha256: digest, size: 4096), "vectors.bin": MemberInfo(sha256: digest, size: 100)])
        let bundle = BundleRef(path: TreeLayout.bundlePath(sha256: digest.description), digest: digest, size: 1234)
        var entry = CatalogEntry(id: "field-guide", version: CorpusVersion("3")!, title: "Field guide", description: "d", language: "en",
                                 license: "CC0-1.0", access: .entitled, tier: "pro", bundled: false, bundle: bundle, documents: 2,
                                 passages: 9, embedder: embedder, content: digest)
        entry.deltas = [DeltaRef(fromVersion: CorpusVersion("2")!, fromContent: digest,
                                 file: BundleRef(path: TreeLayout.deltaPath(sha256: digest.description), digest: digest, size: 99))]
        let artifact = BundleRef(path: TreeLayout.embedderPath(sha256: digest.description), digest: digest, size: 77)
        let catalog = Catalog(id: "harbour", title: "Harbour", version: 7, issued: Date(timeIntervalSince1970: 1_780_000_000),
                              expires: Date(timeIntervalSince1970: 1_790_000_000), rootVersion: 2, corpora: [entry],
                              embedders: [CatalogEmbedder(id: "minilm-l6", dimension: 384, digest: digest, artifact: artifact)])
        let delta = DeltaDocument(id: "field-guide", from: .init(version: CorpusVersion("2")!, content: digest, vectors: digest, rows: digest),
                                  to: .init(version: CorpusVersion("3")!, content: digest, manifest: digest),
                                  rows: .init(removed: 1, kept: 5, added: 3),
                                  members: ["changes.sqlite": MemberInfo(sha256: digest, size: 10)])
        let embedderManifest = EmbedderManifest(id: "minilm-l6", dimension: 384, files: ["vocab.txt": MemberInfo(sha256: digest, size: 5)])
        let root = RootKeyDocument(version: 2, key: FuzzKeys.secret.publicKey, created: Date(timeIntervalSince1970: 1_780_000_000))
        let docs: [(String, UInt8, Data)] = [
            ("manifest", 0, try manifest.canonicalBytes()),
            ("catalog", 1, try catalog.canonicalBytes()),
            ("pointer", 2, try CanonicalJSON.encode(CatalogPointer(id: "harbour", version: 7))),
            ("root-key", 3, try CanonicalJSON.encode(root)),
            ("delta", 4, try delta.canonicalBytes()),
            ("embedder", 5, try embedderManifest.canonicalBytes()),
            ("json", 6, Data(#"{"a":[1,-2,true,false,null,"\u0000\n\"é"],"b":{"":{}}}"#.utf8)),
        ]
        return docs.map { ($0.0, [$0.1] + [UInt8]($0.2)) }
    }
}
