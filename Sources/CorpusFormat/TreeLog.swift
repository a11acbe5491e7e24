import Foundation

/// Where a published tree keeps its transparency log, and what its log is called
/// (docs/format.md "Transparency log").
public enum TreeLog {
    /// The log's folder in a tree; its files are served under this prefix.
    public static let folder = "log"
    /// The signed checkpoint, the tree's third mutable file (after the pointer and `timestamp.json`).
    public static let checkpoint = "log/checkpoint"
    /// Served checkpoints are small notes: a log key's signature and at most a few dozen cosignatures.
    public static let maxCheckpointBytes: Int64 = 16 * 1024

    /// The tree-relative path of a tile or entry bundle.
    public static func path(_ tile: TilePath) -> String { "\(folder)/\(tile.path)" }

    /// A tree's log origin: a name of the catalog, not of any URL, since one tree is served by its
    /// origin and by every mirror alike, and a witness must see all of them as one log.
    public static func origin(catalogID: String) -> String { "corpussync/\(catalogID)" }

    /// True for a path of a tile or entry bundle: immutable once a checkpoint names it.
    public static func isTile(_ path: String) -> Bool { path.hasPrefix("\(folder)/tile/") }
}

extension SecretKey {
    /// The minisign key's Ed25519 seed as a signed-note key named `keyName` (a log's checkpoint key).
    public func noteSigner(keyName: String) throws -> Ed25519NoteSigner {
        try Ed25519NoteSigner(keyName: keyName, seed: seed)
    }

    /// The minisign key's Ed25519 seed as a witness's cosigning key.
    public func cosignatureSigner(keyName: String, timestamp: UInt64) throws -> CosignatureSigner {
        try CosignatureSigner(keyName: keyName, seed: seed, timestamp: timestamp)
    }
}

extension PublicKey {
    /// The key as the verifier of a log's checkpoints named `keyName`.
    public func noteVerifier(keyName: String) throws -> Ed25519NoteVerifier {
        try Ed25519NoteVerifier(keyName: keyName, publicKey: bytes)
    }
}
