import Foundation

/// The proof, kept next to what a client accepted (and with each corpus it installs from it), that
/// one leaf is in a log: the leaf, its index, the RFC 9162 inclusion proof and the signed
/// checkpoint it proves against, as served (docs/format.md "Inclusion proof kept with a corpus").
///
/// Next to what a client accepted (`bytes`, v1), the file holds the note:
///
///     corpussync-log-inclusion/v1
///     index <N>
///     proof <base64 of the proof's hashes, concatenated; empty for a tree of one leaf>
///     <the leaf's lines 2 to 4: kind and id, version, sha256>
///     <blank line>
///     <the checkpoint note, byte for byte as served>
///
/// With each installed corpus (`keptBytes`, v2), it names the note instead, kept once per remote
/// by tree size, so a corpus keeps the proof alone (under 1 KB near a million leaves). The leaf's
/// id is the catalog's, which the note's origin names:
///
///     corpussync-log-inclusion/v2
///     index <N>
///     proof <base64 of the proof's hashes, concatenated>
///     <the leaf's kind>
///     <the leaf's lines 3 and 4: version, sha256>
///     checkpoint <the note's tree size>
///
/// It checks offline (`verify`): the note parses, the proof gives its root. Whose key signed the
/// note is the caller's question (a client checks it against the remote's root when it accepts it).
public struct LogInclusion: Equatable, Sendable {
    public static let header = "corpussync-log-inclusion/v1"
    public static let keptHeader = "corpussync-log-inclusion/v2"

    public let leaf: LogLeaf
    public let index: UInt64
    public let proof: [[UInt8]]
    /// The checkpoint note as served.
    public let note: [UInt8]

    public init(leaf: LogLeaf, index: UInt64, proof: [[UInt8]], note: [UInt8]) {
        self.leaf = leaf
        self.index = index
        self.proof = proof
        self.note = note
    }

    public var bytes: [UInt8] {
        let leafLines = String(decoding: leaf.bytes, as: UTF8.self).split(separator: "\n").dropFirst().joined(separator: "\n")
        return Array("\(Self.header)\nindex \(index)\nproof \(Data(proof.flatMap { $0 }).base64EncodedString())\n\(leafLines)\n\n".utf8) + note
    }

    public init(bytes: [UInt8]) throws {
        let (lines, at) = try Self.lines(bytes, count: 6)
        guard lines[0] == Self.header else { throw Self.refuse("not a \(Self.header) file") }
        guard at < bytes.count, bytes[at] == 0x0a else { throw Self.refuse("no blank line before the checkpoint") }
        let (index, proof) = try Self.indexAndProof(lines)
        self.leaf = try LogLeaf(bytes: Array((["\(LogLeaf.header)"] + lines[3...5]).map { $0 + "\n" }.joined().utf8))
        self.index = index
        self.proof = proof
        self.note = Array(bytes[(at + 1)...])
    }

    /// The file kept with an installed corpus (v2): the proof, naming the note it proves against
    /// by the note's tree size (`treeSize`, the size of `note`).
    public func keptBytes(treeSize: UInt64) -> [UInt8] {
        let leafLines = String(decoding: leaf.bytes, as: UTF8.self).split(separator: "\n").dropFirst(2).joined(separator: "\n")
        return Array("\(Self.keptHeader)\nindex \(index)\nproof \(Data(proof.flatMap { $0 }).base64EncodedString())\n\(leaf.kind.rawValue)\n\(leafLines)\ncheckpoint \(treeSize)\n".utf8)
    }

    /// Reads a file kept with an installed corpus: v2, whose note `note(treeSize)` returns (the
    /// caller's store of notes; it throws when the note is gone), or v1, which holds its note.
    /// A note of another size than the one named is refused.
    public init(kept bytes: [UInt8], note: (UInt64) throws -> [UInt8]) throws {
        guard bytes.starts(with: Array("\(Self.keptHeader)\n".utf8)) else {
            try self.init(bytes: bytes)
            return
        }
        let (lines, at) = try Self.lines(bytes, count: 7)
        guard at == bytes.count else { throw Self.refuse("text after the checkpoint line") }
        let (index, proof) = try Self.indexAndProof(lines)
        guard lines[6].hasPrefix("checkpoint "), let size = UInt64(lines[6].dropFirst(11)), "\(size)" == lines[6].dropFirst(11) else {
            throw Self.refuse("no checkpoint line")
        }
        let noteBytes = try note(size)
        let checkpoint = try Checkpoint(text: try SignedNote(parsing: noteBytes).text)
        guard checkpoint.size == size else { throw Self.refuse("it names the checkpoint of size \(size); the note kept holds size \(checkpoint.size)") }
        let prefix = TreeLog.origin(catalogID: "")
        guard checkpoint.origin.hasPrefix(prefix) else { throw Self.refuse("the note's origin names no catalog") }
        let id = String(checkpoint.origin.dropFirst(prefix.count))
        let leaf = try LogLeaf(bytes: Array((["\(LogLeaf.header)", "\(lines[3]) \(id)"] + lines[4...5]).map { $0 + "\n" }.joined().utf8))
        self.init(leaf: leaf, index: index, proof: proof, note: noteBytes)
    }

    /// The tree size a v2 kept file names; nil for v1 or a file that names none.
    public static func namedTreeSize(kept bytes: [UInt8]) -> UInt64? {
        guard bytes.starts(with: Array("\(keptHeader)\n".utf8)), let (lines, _) = try? Self.lines(bytes, count: 7),
              lines[6].hasPrefix("checkpoint ") else { return nil }
        return UInt64(lines[6].dropFirst(11))
    }

    private static func refuse(_ reason: String) -> TransparencyLogError { .malformedLeaf(reason: "inclusion proof: \(reason)") }

    /// The first `count` newline-terminated lines, and where the rest starts.
    private static func lines(_ bytes: [UInt8], count: Int) throws -> (lines: [String], rest: Int) {
        var lines: [String] = []
        var at = 0
        while lines.count < count {
            guard let end = bytes[at...].firstIndex(of: 0x0a) else { throw refuse("truncated") }
            lines.append(String(decoding: bytes[at..<end], as: UTF8.self))
            at = end + 1
        }
        return (lines, at)
    }

    /// Lines 2 and 3, which both versions share.
    private static func indexAndProof(_ lines: [String]) throws -> (UInt64, [[UInt8]]) {
        guard lines[1].hasPrefix("index "), let index = UInt64(lines[1].dropFirst(6)) else { throw refuse("no index line") }
        guard lines[2].hasPrefix("proof "), let raw = Data(base64Encoded: String(lines[2].dropFirst(6))), raw.count % MerkleHash.size == 0 else {
            throw refuse("no proof line of base64 hashes")
        }
        let proofBytes = [UInt8](raw)
        return (index, stride(from: 0, to: proofBytes.count, by: MerkleHash.size).map { Array(proofBytes[$0..<($0 + MerkleHash.size)]) })
    }

    /// The checkpoint the proof is against (its signatures not checked here).
    public func checkpoint() throws -> Checkpoint { try Checkpoint(text: try SignedNote(parsing: note).text) }

    /// Checks the proof against the checkpoint's root; returns the checkpoint.
    @discardableResult
    public func verify() throws -> Checkpoint {
        let checkpoint = try checkpoint()
        try MerkleProof.verifyInclusion(leafHash: MerkleHash.leaf(leaf.bytes), index: index, size: checkpoint.size, proof: proof, root: checkpoint.rootHash)
        return checkpoint
    }
}
