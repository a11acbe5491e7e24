import Foundation

/// A transparency log kept as static files in a folder, laid out as its URL prefix serves them:
/// `checkpoint` (the one mutable file) and `tile/…` (immutable tiles and entry bundles).
public struct LogFolder: Sendable {
    public static let checkpointName = "checkpoint"

    public let path: String

    public init(path: String) { self.path = path }

    public var checkpointPath: String { path + "/" + Self.checkpointName }

    public func filePath(_ tile: TilePath) -> String { path + "/" + tile.path }

    /// The checkpoint note's bytes, nil when the log has none yet.
    public func checkpointBytes() throws -> [UInt8]? {
        guard FileIO.exists(checkpointPath) else { return nil }
        return try read(checkpointPath)
    }

    /// Reads a tile or entry bundle; a `TileHashReader.Fetch` for logs on disk.
    public func tile(_ tile: TilePath) throws -> [UInt8] { try read(filePath(tile)) }

    private func read(_ file: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw FormatError.io(operation: "read", path: file, errno: FileIO.exists(file) ? EIO : ENOENT)
        }
        return [UInt8](data)
    }
}
