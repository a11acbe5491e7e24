import Foundation
import CorpusFormat

/// An entry of a generated catalog: realistic field sizes (about 600 bytes as JSON, as the
/// reader app's one-book corpora), distinct per id and version.
public func generatedEntry(_ n: Int, version: String = "1") -> CatalogEntry {
    let id = "book-\(n)"
    return CatalogEntry(id: id, version: CorpusVersion(version)!, title: "Book number \(n): a public-domain title of middling length",
                        description: "One book of a generated catalog, number \(n), with a description about as long as a blurb on a back cover.",
                        language: "en", license: "public-domain", access: .free, tier: nil, bundled: false,
                        bundle: BundleRef(path: TreeLayout.bundlePath(sha256: SHA256.digest(Data("\(id)@\(version)".utf8)).hex),
                                          digest: SHA256.digest(Data("\(id)@\(version)".utf8)), size: 3_114 + Int64(n)),
                        documents: 1, passages: 40 + n % 17, embedder: EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"),
                        content: SHA256.digest(Data("content \(id)@\(version)".utf8)))
}
