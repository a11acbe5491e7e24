import Foundation

/// A tlog-tiles entry bundle: the log's leaves, each as a big-endian uint16 length and its bytes.
public enum EntryBundle {
    public static let maxEntrySize = Int(UInt16.max)

    public static func encode(_ entries: [[UInt8]]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in entries {
            guard entry.count <= maxEntrySize else { throw TransparencyLogError.leafTooLarge(size: entry.count) }
            bytes += [UInt8(entry.count >> 8), UInt8(entry.count & 0xff)] + entry
        }
        return bytes
    }

    /// The entries of the bundle at `path`, which must hold exactly as many as its width says.
    public static func decode(_ bytes: [UInt8], path: TilePath) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            guard at + 2 <= bytes.count else { throw TransparencyLogError.malformedEntryBundle(path: path.path, reason: "truncated length at byte \(at)") }
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            at += 2
            guard at + length <= bytes.count else { throw TransparencyLogError.malformedEntryBundle(path: path.path, reason: "truncated entry at byte \(at)") }
            entries.append(Array(bytes[at..<(at + length)]))
            at += length
        }
        guard entries.count == path.count else {
            throw TransparencyLogError.malformedEntryBundle(path: path.path, reason: "\(entries.count) entries, expected \(path.count)")
        }
        return entries
    }
}
