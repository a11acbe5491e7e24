import Foundation

/// The proof, kept next to what a client accepted (and with each corpus it installs from it), that
/// one leaf is in a log: the leaf, its index, the RFC 9162 inclusion proof and the signed
/// checkpoint it proves against, as served (docs/format.md "Inclusion proof kept with a corpus").
///
///     corpussync-log-inclusion/v1
///     index <N>
///     proof <base64 of the proof's hashes, concatenated; empty for a tree of one leaf>
///     <the leaf's lines 2 to 4: kind and id, version, sha256>
///     <blank line>
///     <the checkpoint note, byte for byte as served>
///
/// It checks offline (`verify`): the note parses, the proof gives its root. Whose key signed the
/// note is the caller's question (a client checks it against the remote's root when it accepts it).
public struct LogInclusion: Equatable, Sendable {
    public static let header = "corpussync-log-inclusion/v1"

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
        let refuse = { (reason: String) in TransparencyLogError.malformedLeaf(reason: "inclusion proof: \(reason)") }
        var lines: [String] = []
        var at = 0
        while lines.count < 6 {
            guard let end = bytes[at...].firstIndex(of: 0x0a) else { throw refuse("truncated") }
            lines.append(String(decoding: bytes[at..<end], as: UTF8.self))
            at = end + 1
        }
        guard lines[0] == Self.header else { throw refuse("not a \(Self.header) file") }
        guard lines[1].hasPrefix("index "), let index = UInt64(lines[1].dropFirst(6)) else { throw refuse("no index line") }
        guard lines[2].hasPrefix("proof "), let raw = Data(base64Encoded: String(lines[2].dropFirst(6))), raw.count % MerkleHash.size == 0 else {
            throw refuse("no proof line of base64 hashes")
        }
        guard at < bytes.count, bytes[at] == 0x0a else { throw refuse("no blank line before the checkpoint") }
        let proofBytes = [UInt8](raw)
        self.leaf = try LogLeaf(bytes: Array((["\(LogLeaf.header)"] + lines[3...5]).map { $0 + "\n" }.joined().utf8))
        self.index = index
        self.proof = stride(from: 0, to: proofBytes.count, by: MerkleHash.size).map { Array(proofBytes[$0..<($0 + MerkleHash.size)]) }
        self.note = Array(bytes[(at + 1)...])
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
