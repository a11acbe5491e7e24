import CorpusFormat
import Foundation

/// `corpusd cosign`: adds witnesses' cosignatures to a tree's `log/checkpoint` (the publish path's
/// way of collecting them: each witness writes the checkpoint it cosigned, `corpusd witness`, and
/// the publisher merges them here). A cosigned note counts only when its text is exactly the tree's
/// checkpoint text: a witness that cosigned another tree head cosigned nothing of this one.
///
/// The log's own signature is checked first, with the publishing key, so a damaged checkpoint is
/// not re-signed by merging into it; cosignatures are not verified here (the publisher need not
/// know every witness's key): clients verify the ones they require.
public enum CheckpointCosigner {
    public struct Merged: Sendable {
        /// Key names of the signatures added, in the order given.
        public var added: [String]
        /// Files whose note is over another checkpoint (skipped, with its tree size).
        public var otherCheckpoint: [(file: String, size: UInt64?)]
        public var checkpoint: Checkpoint
    }

    public static func merge(tree: String, notes: [(file: String, bytes: [UInt8])], key: SecretKey) throws -> Merged {
        let lock = try TreeLock.take(tree: tree)
        defer { lock.release() }
        let path = "\(tree)/\(TreeLog.checkpoint)"
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw PublisherError.invalidCatalogSource(path: path, reason: "the tree has no log yet: publish first")
        }
        var note = try SignedNote(parsing: [UInt8](bytes))
        let checkpoint = try Checkpoint(text: note.text)
        _ = try Checkpoint.open([UInt8](bytes), origin: checkpoint.origin, verifiers: [try key.publicKey.noteVerifier(keyName: checkpoint.origin)])
        var added: [String] = []
        var other: [(String, UInt64?)] = []
        for (file, given) in notes {
            let cosigned = try SignedNote(parsing: given)
            guard cosigned.text == note.text else {
                other.append((file, try? Checkpoint(text: cosigned.text).size))
                continue
            }
            for signature in cosigned.signatures where !note.signatures.contains(where: { $0.keyName == signature.keyName && $0.keyID == signature.keyID }) {
                note = try SignedNote(text: note.text, signatures: note.signatures + [signature])
                added.append(signature.keyName)
            }
        }
        if !added.isEmpty { try FileIO.writeAtomically(Data(note.bytes), to: path) }
        return Merged(added: added, otherCheckpoint: other, checkpoint: checkpoint)
    }
}
