import CorpusFormat
import Foundation

/// `corpus verify --log`, offline: the inclusion proofs a home keeps (each remote's accepted
/// catalog, each installed corpus's catalog version) against their checkpoints, each checkpoint
/// signed by a catalog key of the remote's trusted root; and, given another client's checkpoint of
/// the same log, whether the two views fork.
public enum LogVerification {
    /// One thing checked: a remote's accepted catalog (`corpus` nil), an installed corpus, or the
    /// comparison with another checkpoint (`against`).
    public struct Outcome: Sendable {
        public var remote: String
        public var corpus: String?
        public var against: String?
        /// The tree size and the leaf index the proof holds.
        public var treeSize: UInt64?
        public var index: UInt64?
        public var error: SyncError?
        /// What the comparison found when it could not decide (sizes differ).
        public var note: String?
    }

    public static func verify(home: HomeLayout, remotes: [Remote], against given: (path: String, bytes: [UInt8])?) throws -> [Outcome] {
        let other = try given.map { (path: $0.path, bytes: try namedNote($0.bytes, path: $0.path) ?? $0.bytes) }
        let state = LogState(home: home)
        var out: [Outcome] = []
        var compared = false
        for remote in remotes {
            guard let held = try state.acceptedCheckpoint(remote.name), let accepted = try CatalogState(home: home).accepted(remote.name) else { continue }
            let root = try TrustStore(home: home).currentRoot(for: remote)
            let origin = TreeLog.origin(catalogID: accepted.catalog.id)
            let verifiers = try root.catalogKeys.map { try $0.noteVerifier(keyName: origin) }
            func check(_ read: () throws -> LogInclusion?, corpus: String?, expected: SHA256Digest?) -> Outcome {
                var o = Outcome(remote: remote.name, corpus: corpus)
                do {
                    guard let inclusion = try read() else {
                        o.error = .logRefused(reason: "no inclusion proof is kept")
                        return o
                    }
                    _ = try Checkpoint.open(inclusion.note, origin: origin, verifiers: verifiers)
                    let checkpoint = try inclusion.verify()
                    o.treeSize = checkpoint.size
                    o.index = inclusion.index
                    if let expected, inclusion.leaf.sha256 != expected {
                        o.error = .logRefused(reason: "the kept proof is of another catalog than the one accepted")
                    }
                } catch let e as SyncError {
                    o.error = e
                } catch {
                    o.error = .logRefused(reason: "\(error)")
                }
                return o
            }
            let kept = state.acceptedInclusion(remote.name)
            out.append(check({ kept }, corpus: nil, expected: kept?.leaf.version == accepted.catalog.version ? SHA256.digest(accepted.bytes) : nil))
            for (r, id) in home.installedCorpora() where r == remote.name {
                guard let dir = home.currentVersionDirectory(remote: r, id: id), let record = InstallRecord.read(versionDirectory: dir) else { continue }
                out.append(check({ try state.keptInclusion(remote: r, id: id, version: "\(record.version)") },
                                 corpus: "\(id)@\(record.version)", expected: nil))
            }
            if let other, let note = try? otherNote(other.bytes), let theirs = try? Checkpoint(text: note.text), theirs.origin == origin {
                compared = true
                out.append(compare(held, theirs: other.bytes, remote: remote.name, path: other.path, origin: origin, verifiers: verifiers))
            }
        }
        if let other, !compared {
            throw SyncError.logRefused(reason: "\(other.path) is not a checkpoint of the log of any catalog this home accepted")
        }
        return out
    }

    /// The note a corpus's kept proof (v2, `state/<remote>/log-proofs/<id>@<version>`) names, read
    /// where a home keeps it (`../log-checkpoints/<tree size>`); nil for any other file. A named
    /// note that is not there is a file the user did not give, not a fork (`notFound`).
    static func namedNote(_ bytes: [UInt8], path: String) throws -> [UInt8]? {
        guard let size = LogInclusion.namedTreeSize(kept: bytes) else { return nil }
        let proofs = URL(fileURLWithPath: path).deletingLastPathComponent()
        let note = proofs.deletingLastPathComponent().appendingPathComponent("log-checkpoints/\(size)").path
        guard let data = FileManager.default.contents(atPath: note) else { throw SyncError.notFound(file: note) }
        return [UInt8](data)
    }

    /// A checkpoint note, or the note inside a kept inclusion proof.
    static func otherNote(_ bytes: [UInt8]) throws -> SignedNote {
        if bytes.starts(with: Array(LogInclusion.header.utf8)) { return try SignedNote(parsing: try LogInclusion(bytes: bytes).note) }
        return try SignedNote(parsing: bytes)
    }

    /// Two checkpoints of one log, both signed by its key: the same size with different roots is a
    /// fork (no append-only log signs both). Sizes that differ need the tiles to compare: a refresh.
    static func compare(_ held: (note: [UInt8], checkpoint: Checkpoint), theirs bytes: [UInt8], remote: String, path: String, origin: String,
                        verifiers: [any NoteVerifier]) -> Outcome {
        var o = Outcome(remote: remote, against: path, treeSize: held.checkpoint.size)
        let theirs: Checkpoint
        do {
            let note = try otherNote(bytes)
            theirs = try Checkpoint.open(note.bytes, origin: origin, verifiers: verifiers).checkpoint
        } catch {
            o.error = .logRefused(reason: "\(path) is not signed by this catalog's log key: \(error)")
            return o
        }
        if theirs.size == held.checkpoint.size {
            if theirs.rootHash != held.checkpoint.rootHash {
                o.error = .logFork(reason: "\(path) and this home's checkpoint both have size \(theirs.size), with different roots", evidence: path)
            }
        } else {
            o.note = "sizes differ (\(theirs.size) there, \(held.checkpoint.size) here): refresh both and compare again, or compare at the same size"
        }
        return o
    }
}
