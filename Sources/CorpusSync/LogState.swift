import CorpusFormat
import Foundation

/// What a client keeps of a remote's transparency log (docs/layout.md): the checkpoint it accepted
/// last, byte for byte as served (`state/<remote>/checkpoint`), the inclusion proof of the catalog
/// version it accepted (`state/<remote>/log-inclusion`), each installed corpus's proof
/// (`log-proofs/<id>@<version>`) naming its note, kept once (`log-checkpoints/<tree size>`), the
/// checkpoint refused last as not cosigned (`state/<remote>/pending-checkpoint`, with the URL that
/// served it in `pending-source`), and, after a fork, the evidence (`forks/<remote>-<time>/`).
public struct LogState: Sendable {
    /// A checkpoint and the catalog's inclusion proof against it, verified, to be written on commit.
    public struct Accepted: Sendable {
        public var inclusion: LogInclusion
        public var checkpoint: Checkpoint
        /// True when the pending checkpoint is to go: this one is it or extends it (or the newest
        /// root's keys no longer verify it).
        var dropsPending = false
    }

    /// A checkpoint refused as not cosigned: signed by the log key and extending the accepted one,
    /// never trusted for anything, only compared with what is served next (a split view shown to
    /// this client alone forks from it).
    struct PendingNote: Sendable {
        let note: [UInt8]
        let source: String
    }

    /// The note a served checkpoint forks from, as the evidence names it.
    enum ForkedFrom: Sendable {
        case accepted([UInt8])
        case pending(PendingNote)
    }

    public let home: HomeLayout

    public init(home: HomeLayout) { self.home = home }

    public func checkpointPath(_ remote: String) -> String { "\(home.state(remote))/checkpoint" }
    public func inclusionPath(_ remote: String) -> String { "\(home.state(remote))/log-inclusion" }
    public var forks: String { "\(home.root)/forks" }
    public func pendingPath(_ remote: String) -> String { "\(home.state(remote))/pending-checkpoint" }
    func pendingSourcePath(_ remote: String) -> String { "\(home.state(remote))/pending-source" }

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

    /// Writes the inclusion proof, then the checkpoint it proves against, each atomically; then
    /// drops the pending checkpoint it covers.
    public func persist(_ accepted: Accepted, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(Data(accepted.inclusion.bytes), to: inclusionPath(remote))
        try FileIO.writeAtomically(Data(accepted.inclusion.note), to: checkpointPath(remote))
        if accepted.dropsPending {
            FileIO.remove(pendingPath(remote))
            FileIO.remove(pendingSourcePath(remote))
        }
    }

    /// The pending checkpoint as served, with the URL that served it; nil when none. It is only
    /// compared, never trusted, so one without its source names none.
    func pendingCheckpoint(_ remote: String) -> PendingNote? {
        guard let note = FileManager.default.contents(atPath: pendingPath(remote)) else { return nil }
        let source = FileManager.default.contents(atPath: pendingSourcePath(remote)).map { String(decoding: $0, as: UTF8.self) }
        return PendingNote(note: [UInt8](note), source: source?.trimmingCharacters(in: .newlines) ?? "an unknown source")
    }

    /// Keeps `pending` (the source, then the note, each atomically), replacing the one held.
    func keepPending(_ pending: PendingNote, remote: String) throws {
        try FileIO.createDirectory(home.state(remote))
        try FileIO.writeAtomically(Data("\(pending.source)\n".utf8), to: pendingSourcePath(remote))
        try FileIO.writeAtomically(Data(pending.note), to: pendingPath(remote))
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

    /// Keeps the two notes of a fork as served, with where they came from; returns the folder.
    func keepEvidence(remote: String, forkedFrom held: ForkedFrom, served: [UInt8], source: String, now: Date) throws -> String {
        let stamp = Timestamp.format(now).replacingOccurrences(of: ":", with: "")
        var folder = "\(forks)/\(remote)-\(stamp)"
        var n = 1
        while FileIO.exists(folder) {
            n += 1
            folder = "\(forks)/\(remote)-\(stamp)-\(n)"
        }
        try FileIO.createDirectory(folder)
        var sources = "served by \(source)\n"
        switch held {
        case let .accepted(note):
            try FileIO.writeAtomically(Data(note), to: "\(folder)/accepted-checkpoint")
        case let .pending(pending):
            try FileIO.writeAtomically(Data(pending.note), to: "\(folder)/pending-checkpoint")
            sources += "pending-checkpoint served by \(pending.source)\n"
        }
        try FileIO.writeAtomically(Data(served), to: "\(folder)/served-checkpoint")
        try FileIO.writeAtomically(Data(sources.utf8), to: "\(folder)/source.txt")
        return folder
    }
}
