import CorpusFormat
import Foundation

/// What a client keeps of a remote's transparency log (docs/layout.md): the checkpoint it accepted
/// last, byte for byte as served (`state/<remote>/checkpoint`), the inclusion proof of the catalog
/// version it accepted (`state/<remote>/log-inclusion`), each installed corpus's proof
/// (`log-proofs/<id>@<version>`) naming its note, kept once (`log-checkpoints/<tree size>`), and,
/// after a fork, the evidence (`forks/<remote>-<time>/`).
public struct LogState: Sendable {
    /// A checkpoint and the catalog's inclusion proof against it, verified, to be written on commit.
    public struct Accepted: Sendable {
        public var inclusion: LogInclusion
        public var checkpoint: Checkpoint
    }

    public let home: HomeLayout

    public init(home: HomeLayout) { self.home = home }

    public func checkpointPath(_ remote: String) -> String { "\(home.state(remote))/checkpoint" }
    public func inclusionPath(_ remote: String) -> String { "\(home.state(remote))/log-inclusion" }
    public var forks: String { "\(home.root)/forks" }

    /// The checkpoint note accepted last, as served; nil before the first. It was verified before it
    /// was written; one that no longer parses is a damaged local file.
    public func acceptedCheckpoint(_ remote: String) throws -> (note: [UInt8], checkpoint: Checkpoint)? {
        let path = checkpointPath(remote)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return ([UInt8](data), try Checkpoint(text: try SignedNote(parsing: [UInt8](data)).text))
        } catch {
            throw SyncError.localFileDamaged(path: path, reason: "\(error)")
        }
    }

    /// The inclusion proof of the catalog accepted last, nil when none was kept.
    public func acceptedInclusion(_ remote: String) -> LogInclusion? {
        FileManager.default.contents(atPath: inclusionPath(remote)).flatMap { try? LogInclusion(bytes: [UInt8]($0)) }
    }

    /// Writes the inclusion proof, then the checkpoint it proves against, each atomically.
    public func persist(_ accepted: Accepted, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(Data(accepted.inclusion.bytes), to: inclusionPath(remote))
        try FileIO.writeAtomically(Data(accepted.inclusion.note), to: checkpointPath(remote))
    }

    /// Where the inclusion proof of the catalog version a corpus was installed from is kept: in the
    /// remote's state, not in the corpus's folder, whose entries the installer alone owns (a
    /// version folder's files are stamped at install, and an interrupted install is cleaned by
    /// what that folder holds).
    public func installedInclusionPath(remote: String, id: String, version: String) -> String {
        "\(keptProofs(remote))/\(id)@\(version)"
    }

    func keptProofs(_ remote: String) -> String { "\(home.state(remote))/log-proofs" }

    /// The checkpoint notes the kept proofs (v2) name, once each, by tree size, as served.
    public func keptCheckpointPath(remote: String, treeSize: UInt64) -> String { "\(keptCheckpoints(remote))/\(treeSize)" }

    func keptCheckpoints(_ remote: String) -> String { "\(home.state(remote))/log-checkpoints" }

    /// Gives every corpus of `catalog` installed at the version it lists, and holding no proof yet
    /// (or one naming a note that is gone), the proof that the catalog it came from is in the log:
    /// the note once (`log-checkpoints/`), then the proof naming it; then drops what no installed
    /// corpus needs (`pruneKeptProofs`).
    public func keepWithInstalled(_ inclusion: LogInclusion, catalog: Catalog, remote: String) throws {
        let lock = try HomeLocks(home: home).logProofs(remote: remote, wait: .upTo(seconds: 30))
        defer { withExtendedLifetime(lock) {} }
        let checkpoint = try inclusion.checkpoint()
        var noteKept = false
        for entry in catalog.corpora {
            guard let dir = home.currentVersionDirectory(remote: remote, id: entry.id),
                  let record = InstallRecord.read(versionDirectory: dir), record.version == entry.version else { continue }
            let path = installedInclusionPath(remote: remote, id: entry.id, version: "\(entry.version)")
            // A proof kept already stays, unless the note it names is gone (a damaged home): a new one mends it.
            if let held = FileManager.default.contents(atPath: path) {
                guard let size = LogInclusion.namedTreeSize(kept: [UInt8](held)), !FileIO.exists(keptCheckpointPath(remote: remote, treeSize: size)) else { continue }
            }
            if !noteKept {
                try keepNote(inclusion.note, checkpoint: checkpoint, remote: remote)
                noteKept = true
            }
            try FileIO.createDirectory(keptProofs(remote))
            try FileIO.writeAtomically(Data(inclusion.keptBytes(treeSize: checkpoint.size)), to: path)
        }
        try prune(remote: remote)
    }

    /// Writes the note of `checkpoint` unless the same tree head is kept already (a copy with
    /// other cosignatures proves the same); one of another root (a log the newest root restarted
    /// after a key rotation) is replaced.
    private func keepNote(_ note: [UInt8], checkpoint: Checkpoint, remote: String) throws {
        let path = keptCheckpointPath(remote: remote, treeSize: checkpoint.size)
        if let held = FileManager.default.contents(atPath: path),
           let heldCheckpoint = try? Checkpoint(text: try SignedNote(parsing: [UInt8](held)).text), heldCheckpoint == checkpoint { return }
        try FileIO.createDirectory(keptCheckpoints(remote))
        try FileIO.writeAtomically(Data(note), to: path)
    }

    /// The kept proof of corpus `id` at `version`, nil when none is kept. A v2 proof's note is read
    /// from `log-checkpoints/`; when it is gone, the home folder is damaged (`localFileDamaged`).
    public func keptInclusion(remote: String, id: String, version: String) throws -> LogInclusion? {
        guard let data = FileManager.default.contents(atPath: installedInclusionPath(remote: remote, id: id, version: version)) else { return nil }
        return try LogInclusion(kept: [UInt8](data)) { size in
            let path = keptCheckpointPath(remote: remote, treeSize: size)
            guard let note = FileManager.default.contents(atPath: path) else {
                throw SyncError.localFileDamaged(path: path, reason: "it is missing, and the kept proof of \(id)@\(version) names it")
            }
            return [UInt8](note)
        }
    }

    /// Removes the kept proofs of corpora no longer installed at that version (removed, updated),
    /// then the notes no kept proof names. After `corpus remove`; `keepWithInstalled` calls it too.
    public func pruneKeptProofs(remote: String) throws {
        let lock = try HomeLocks(home: home).logProofs(remote: remote, wait: .upTo(seconds: 30))
        defer { withExtendedLifetime(lock) {} }
        try prune(remote: remote)
    }

    /// `pruneKeptProofs` under the lock its callers hold.
    private func prune(remote: String) throws {
        let fm = FileManager.default
        var named = Set<String>()
        for name in (try? fm.contentsOfDirectory(atPath: keptProofs(remote))) ?? [] {
            let path = "\(keptProofs(remote))/\(name)"
            let parts = name.split(separator: "@", maxSplits: 1).map(String.init)
            let current = parts.count == 2 ? home.currentVersionDirectory(remote: remote, id: parts[0]).flatMap { InstallRecord.read(versionDirectory: $0) } : nil
            guard let current, "\(current.version)" == parts[1] else {
                FileIO.remove(path)
                continue
            }
            if let bytes = fm.contents(atPath: path), let size = LogInclusion.namedTreeSize(kept: [UInt8](bytes)) { named.insert("\(size)") }
        }
        for name in (try? fm.contentsOfDirectory(atPath: keptCheckpoints(remote))) ?? [] where !named.contains(name) {
            FileIO.remove("\(keptCheckpoints(remote))/\(name)")
        }
    }

    /// Keeps the two notes of a fork as served, with where it came from; returns the folder.
    func keepEvidence(remote: String, accepted: [UInt8], served: [UInt8], source: String, now: Date) throws -> String {
        let stamp = Timestamp.format(now).replacingOccurrences(of: ":", with: "")
        var folder = "\(forks)/\(remote)-\(stamp)"
        var n = 1
        while FileIO.exists(folder) {
            n += 1
            folder = "\(forks)/\(remote)-\(stamp)-\(n)"
        }
        try FileIO.createDirectory(folder)
        try FileIO.writeAtomically(Data(accepted), to: "\(folder)/accepted-checkpoint")
        try FileIO.writeAtomically(Data(served), to: "\(folder)/served-checkpoint")
        try FileIO.writeAtomically(Data("served by \(source)\n".utf8), to: "\(folder)/source.txt")
        return folder
    }
}
