import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusTestSupport

/// Values the JSON shape tests encode, fixed so that the expected bytes can be written out.
enum JSONShapeFixtures {
    static let day = Date(timeIntervalSince1970: 1_796_000_000)   // 2026-11-30T…Z
    static var dayText: String { Timestamp.format(day) }

    static func entry(_ id: String, version: String = "2", access: Access = .free, tier: String? = nil, bundled: Bool = false) -> CatalogEntry {
        CatalogEntry(id: id, version: CorpusVersion(version)!, title: "Tides & streams", description: "tide tables / streams",
                     language: "en", license: "CC0", access: access, tier: tier, bundled: bundled,
                     bundle: BundleRef(path: "bundles/\(String(repeating: "a", count: 64)).corpus.zip", digest: .filled("a"), size: 2920),
                     documents: 3, passages: 22, embedder: EmbedderInfo(id: "hashing-v1", dimension: 4, encoding: "int8"), content: .filled("d"))
    }

    /// What `JSONSerialization` writes for the same object with the options `corpus` always used:
    /// the bytes today's output had. Parsing our bytes back and writing them again must give them.
    static func serializationBytes(_ json: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]), as: UTF8.self)
    }
}
