import Foundation

/// One resource of a C2SP tlog-tiles log: a hash tile `tile/<L>/<N>[.p/<W>]` or an entry bundle
/// `tile/entries/<N>[.p/<W>]`, relative to the log's prefix.
///
/// `<N>` is written in zero-padded 3-digit elements, all but the last prefixed with `x`
/// (1234067 → `x001/x234/067`), so a file system holds every tile without a file and a folder
/// of one name; `.p/<W>` marks a partial tile of W (1…255) hashes or entries.
public struct TilePath: Hashable, Sendable, CustomStringConvertible {
    /// Hashes (or entries) in a full tile.
    public static let width = 256
    public static let maxLevel = 63

    public enum Kind: Hashable, Sendable {
        /// Merkle tree hashes: level 0 holds leaf hashes, level L the roots of full level L-1 tiles.
        case hashes(level: Int)
        /// The leaves themselves, each as a big-endian uint16 length and its bytes.
        case entries
    }

    public let kind: Kind
    public let index: UInt64
    /// Nil for a full tile, else 1…255.
    public let partialWidth: Int?

    public init(kind: Kind, index: UInt64, partialWidth: Int? = nil) {
        if case .hashes(let level) = kind { precondition((0...Self.maxLevel).contains(level), "tile level \(level)") }
        if let w = partialWidth { precondition((1..<Self.width).contains(w), "partial tile width \(w)") }
        self.kind = kind
        self.index = index
        self.partialWidth = partialWidth
    }

    /// Hashes or entries the tile holds.
    public var count: Int { partialWidth ?? Self.width }

    /// The path under the log's prefix, e.g. `tile/0/x001/x234/067.p/5`.
    public var path: String {
        var path = "tile/"
        switch kind {
        case .hashes(let level): path += String(level)
        case .entries: path += "entries"
        }
        path += "/" + Self.encode(index)
        if let w = partialWidth { path += ".p/\(w)" }
        return path
    }

    public var description: String { path }

    /// `<N>` in 3-digit elements, all but the last prefixed with `x`.
    static func encode(_ n: UInt64) -> String {
        var groups: [String] = []
        var rest = n
        repeat {
            let digits = String(rest % 1000)
            groups.append(String(repeating: "0", count: 3 - digits.count) + digits)
            rest /= 1000
        } while rest > 0
        return groups.reversed().enumerated().map { $0.offset == groups.count - 1 ? $0.element : "x" + $0.element }
            .joined(separator: "/")
    }

    /// The tile at `level` holding position `index` (counted in that level's hashes) in a tree
    /// of `treeSize` leaves: full when the tree fills it, else partial at the width the tree gives.
    /// Nil when the tree has no hash at that position.
    public static func hashTile(level: Int, containing index: UInt64, treeSize: UInt64) -> TilePath? {
        let available = level * 8 >= 64 ? 0 : treeSize >> UInt64(level * 8)
        return tile(kind: .hashes(level: level), containing: index, available: available)
    }

    /// The entry bundle holding leaf `index` in a tree of `treeSize` leaves.
    public static func entryBundle(containing index: UInt64, treeSize: UInt64) -> TilePath? {
        tile(kind: .entries, containing: index, available: treeSize)
    }

    private static func tile(kind: Kind, containing index: UInt64, available: UInt64) -> TilePath? {
        guard index < available else { return nil }
        let n = index / UInt64(width)
        let end = (n + 1) * UInt64(width)
        return TilePath(kind: kind, index: n, partialWidth: end <= available ? nil : Int(available - n * UInt64(width)))
    }

    /// Every tile and entry bundle a tree of `treeSize` leaves serves: the full ones and, at each
    /// level, the partial one at the right edge (none where the level divides evenly).
    public static func all(treeSize: UInt64) -> [TilePath] {
        var paths: [TilePath] = []
        for n in stride(from: UInt64(0), to: (treeSize + UInt64(width) - 1) / UInt64(width), by: 1) {
            paths.append(entryBundle(containing: n * UInt64(width), treeSize: treeSize)!)
        }
        for level in 0...maxLevel {
            let available = level * 8 >= 64 ? 0 : treeSize >> UInt64(level * 8)
            if available == 0 { break }
            for n in stride(from: UInt64(0), to: (available + UInt64(width) - 1) / UInt64(width), by: 1) {
                paths.append(hashTile(level: level, containing: n * UInt64(width), treeSize: treeSize)!)
            }
        }
        return paths
    }
}
