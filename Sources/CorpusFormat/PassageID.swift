import Foundation

/// Stable passage identity, independent of insertion order.
///
/// id = first 16 bytes, hex, of SHA-256("passage-v1" ‖ 0 ‖ document path ‖ 0 ‖ section path ‖ 0 ‖
/// ordinal within the section in decimal ‖ 0 ‖ text). The same passage text at the same place in the
/// same document gets the same id in every version, which is what a delta between versions keys on.
public enum PassageID {
    public static func make(documentPath: String, section: String, ordinal: Int, text: String) -> String {
        let d = Digest(.sha256)
        for part in ["passage-v1", documentPath, section, String(ordinal), text] {
            d.update(Array(part.utf8))
            d.update([UInt8(0)])
        }
        return Hex.encode(d.finalize().prefix(16))
    }
}

/// The logical content digest of a corpus: SHA-256 over "corpus-content-v1\n" followed by each
/// passage id, sorted, each followed by "\n", then "embedder:" ‖ embedder id ‖ "\n".
/// Two packs with the same passages and embedder have the same digest even if their bytes differ.
public enum ContentDigest {
    public static func make<S: Sequence>(passageIDs: S, embedderID: String) -> String where S.Element == String {
        let d = Digest(.sha256)
        d.update(Array("corpus-content-v1\n".utf8))
        for id in passageIDs.sorted() {
            d.update(Array(id.utf8))
            d.update([UInt8(ascii: "\n")])
        }
        d.update(Array("embedder:\(embedderID)\n".utf8))
        return Hex.encode(d.finalize())
    }
}
