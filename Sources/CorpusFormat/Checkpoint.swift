import Foundation

/// A C2SP tlog-checkpoint: the note text `<origin>\n<tree size>\n<base64 root hash>\n`, then
/// optional non-empty extension lines, signed by the log (and cosigned by witnesses).
public struct Checkpoint: Equatable, Sendable {
    public let origin: String
    public let size: UInt64
    public let rootHash: [UInt8]
    public let extensions: [String]

    public init(origin: String, size: UInt64, rootHash: [UInt8], extensions: [String] = []) throws {
        guard !origin.isEmpty, !origin.contains("\n") else { throw TransparencyLogError.malformedCheckpoint(reason: "the origin must be one non-empty line") }
        guard rootHash.count == MerkleHash.size else { throw TransparencyLogError.malformedCheckpoint(reason: "the root hash must have 32 bytes") }
        guard extensions.allSatisfy({ !$0.isEmpty && !$0.contains("\n") }) else {
            throw TransparencyLogError.malformedCheckpoint(reason: "an extension line must be one non-empty line")
        }
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// The note text, final newline included.
    public var text: String {
        ([origin, String(size), Data(rootHash).base64EncodedString()] + extensions).map { $0 + "\n" }.joined()
    }

    /// Parses a checkpoint's note text.
    public init(text: String) throws {
        guard text.hasSuffix("\n") else { throw TransparencyLogError.malformedCheckpoint(reason: "the text does not end in a newline") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 3, lines.allSatisfy({ !$0.isEmpty }) else {
            throw TransparencyLogError.malformedCheckpoint(reason: "expected at least three non-empty lines")
        }
        guard let size = UInt64(lines[1]), String(size) == lines[1] else {
            throw TransparencyLogError.malformedCheckpoint(reason: "the tree size is not a decimal number without leading zeroes")
        }
        guard let root = Data(base64Encoded: lines[2]), root.base64EncodedString() == lines[2], root.count == MerkleHash.size else {
            throw TransparencyLogError.malformedCheckpoint(reason: "the root hash is not base64 of 32 bytes")
        }
        try self.init(origin: lines[0], size: size, rootHash: [UInt8](root), extensions: Array(lines.dropFirst(3)))
    }

    /// Parses a served checkpoint note, checks it is signed by the log (and that every signature
    /// by a key of `verifiers` verifies), and checks its origin is the expected one.
    public static func open(_ bytes: [UInt8], origin: String, verifiers: [any NoteVerifier]) throws -> (checkpoint: Checkpoint, note: SignedNote) {
        let note = try SignedNote(parsing: bytes)
        _ = try note.verified(by: verifiers)
        let checkpoint = try Checkpoint(text: note.text)
        guard checkpoint.origin == origin else {
            throw TransparencyLogError.malformedCheckpoint(reason: "origin \(TerminalText.sanitizeLine(checkpoint.origin)) is not the log's origin \(TerminalText.sanitizeLine(origin))")
        }
        return (checkpoint, note)
    }
}
