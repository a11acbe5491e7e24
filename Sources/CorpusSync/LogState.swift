import CorpusFormat
import Foundation

/// What a client keeps of a remote's transparency log (docs/layout.md): the checkpoint it accepted
/// last, byte for byte as served (`state/<remote>/checkpoint`), the inclusion proof of the catalog
/// version it accepted (`state/<remote>/log-inclusion`), and, after a fork, the evidence
/// (`forks/<remote>-<time>/`).
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
        "\(home.state(remote))/log-proofs/\(id)@\(version)"
    }

    /// Gives every corpus of `catalog` installed at the version it lists, and holding no proof yet,
    /// a copy of `inclusion`: the proof that the catalog it came from is in the log.
    public func keepWithInstalled(_ inclusion: LogInclusion, catalog: Catalog, remote: String) throws {
        for entry in catalog.corpora {
            guard let dir = home.currentVersionDirectory(remote: remote, id: entry.id),
                  let record = InstallRecord.read(versionDirectory: dir), record.version == entry.version else { continue }
            let path = installedInclusionPath(remote: remote, id: entry.id, version: "\(entry.version)")
            guard !FileIO.exists(path) else { continue }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileIO.writeAtomically(Data(inclusion.bytes), to: path)
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
