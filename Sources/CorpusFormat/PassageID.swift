import Foundation

/// Stable passage identity, independent of insertion order.
///
/// id = first 16 bytes, hex, of SHA-256("passage-v1" ‖ 0 ‖ document path ‖ 0 ‖ section path ‖ 0 ‖
/// ordinal within the section in decimal ‖ 0 ‖ text). The same passage text at the same place in the
/// same document gets the same id in every version, which is what a delta between versions keys on.
public enum PassageID {
    public static func make(documentPath: String, section: String, ordinal: Int, text: String) -> String {
        let d = Digest(.sha256)
        let zero: [UInt8] = [0]
        for var part in ["passage-v1", documentPath, section, String(ordinal), text] {
            part.withUTF8 { d.update(UnsafeRawBufferPointer($0)) }
            d.update(zero)
        }
        return Hex.encode(d.finalize().prefix(16))
    }
}

/// The logical content digest of a corpus: SHA-256 over "corpus-content-v1\n" followed by each
/// passage id, sorted, each followed by "\n", then "embedder:" ‖ embedder id ‖ "\n".
/// Two packs with the same passages and embedder have the same digest even if their bytes differ.
public enum ContentDigest {
    public static func make<S: Sequence>(passageIDs: S, embedderID: String) -> SHA256Digest where S.Element == String {
        let d = Digest(.sha256)
        d.update(Array("corpus-content-v1\n".utf8))
        // The sequence is read once (it may be single-pass). Passage ids are ASCII, where byte
        // order is String order; sorting bytes is many times faster than comparing Strings,
        // which takes a whole build's worth of time at 100,000 ids.
        let strings = Array(passageIDs)
        var ids = strings.map { Array($0.utf8) }
        if ids.allSatisfy({ $0.allSatisfy { $0 < 0x80 } }) {
            ids.sort { $0.lexicographicallyPrecedes($1) }
        } else {
            ids = strings.sorted().map { Array($0.utf8) }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(ids.reduce(0) { $0 + $1.count + 1 })
        for id in ids {
            buffer += id
            buffer.append(UInt8(ascii: "\n"))
        }
        d.update(buffer)
        d.update(Array("embedder:\(embedderID)\n".utf8))
        return SHA256Digest(bytes: d.finalize())
    }
}
