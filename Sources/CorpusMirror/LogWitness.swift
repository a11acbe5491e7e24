import CorpusFormat
import CorpusSync
import Foundation

/// `corpusd witness`: follows one tree's transparency log and cosigns each checkpoint that is
/// consistent with the last one it cosigned (C2SP tlog-cosignature, Ed25519), so that a client
/// requiring this witness accepts only a history the witness has seen (docs/operations.md
/// "Running a witness").
///
/// Its state folder holds what it pinned and saw: `log.pub` (the log's key, from `--trust` on the
/// first run), `origin`, `checkpoint` (the last note it cosigned, with its cosignature) and
/// `witness.vkey` (its own verifier key, for `corpus remote add --witness`). A fork — a checkpoint
/// no append-only log signs after the one it cosigned — is refused, never cosigned, and both notes
/// are kept under `forks/`. The publisher adds the cosignature to its tree with `corpusd cosign`.
public struct LogWitness: Sendable {
    public struct Cosigned: Sendable {
        public var checkpoint: Checkpoint
        /// The note as served, with this witness's cosignature added.
        public var note: [UInt8]
        /// The size cosigned before, nil on the first run.
        public var previousSize: UInt64?
        public var verifierKey: String
    }

    public var upstream: String
    public var state: String
    public var key: SecretKey
    public var name: String
    /// The log's public key (the publisher's catalog key); required on the first run.
    public var logKey: PublicKey?
    public var retry: RetryPolicy = RetryPolicy()
    public var now: @Sendable () -> Date = { Date() }

    public init(upstream: String, state: String, key: SecretKey, name: String, logKey: PublicKey?) {
        self.upstream = upstream
        self.state = state
        self.key = key
        self.name = name
        self.logKey = logKey
    }

    var logKeyPath: String { "\(state)/log.pub" }
    var originPath: String { "\(state)/origin" }
    public var checkpointPath: String { "\(state)/checkpoint" }
    var vkeyPath: String { "\(state)/witness.vkey" }

    public func run() async throws -> Cosigned {
        let signer = try key.cosignatureSigner(keyName: name, timestamp: UInt64(max(0, now().timeIntervalSince1970)))
        try io { try FileIO.createDirectory(state, mode: 0o700) }
        let lock: FileLock
        do { lock = try FileLock(directory: state) } catch { throw SyncError(error) }
        defer { lock.release() }

        let pinned: PublicKey
        if let logKey {
            pinned = logKey
        } else if FileIO.exists(logKeyPath) {
            do { pinned = try PublicKey(contentsOf: logKeyPath) } catch { throw SyncError.localFileDamaged(path: logKeyPath, reason: "\(error)") }
        } else {
            throw SyncError.invalidRemote(reason: "the first run of a witness needs the log's key: --trust PUB (the publisher's catalog key)")
        }
        let client: HTTPClient
        do { client = try HTTPClient(configuration: HTTPClientConfiguration()) } catch { throw SyncError.network(after: 0, last: .network(reason: "\(error)")) }
        let log = RemoteLog(client: client, source: Source(baseURL: upstream, isOrigin: true))
        guard let served = try await SourceFailover(retry: retry).first(of: [log.source], file: TreeLog.checkpoint, { _ in try await log.checkpointBytes() }) else {
            throw SyncError.notFound(file: TreeLog.checkpoint)
        }
        let heldOrigin = (FileManager.default.contents(atPath: originPath)).map { String(decoding: $0, as: UTF8.self) }
        let origin: String
        do { origin = try Checkpoint(text: try SignedNote(parsing: served).text).origin } catch {
            throw SyncError.logRefused(reason: "\(TreeLog.checkpoint): \(error)")
        }
        if let heldOrigin, heldOrigin != origin {
            throw SyncError.logRefused(reason: "the upstream's log is \(TerminalText.sanitizeLine(origin)), this witness follows \(TerminalText.sanitizeLine(heldOrigin))")
        }
        let verifier = try pinned.noteVerifier(keyName: origin)
        var (checkpoint, note): (Checkpoint, SignedNote)
        do { (checkpoint, note) = try Checkpoint.open(served, origin: origin, verifiers: [verifier]) } catch {
            throw SyncError.logRefused(reason: "\(TreeLog.checkpoint) is not signed by the log key this witness pinned: \(error)")
        }
        var previous: UInt64?
        if let held = FileManager.default.contents(atPath: checkpointPath) {
            let heldCheckpoint: Checkpoint
            do { heldCheckpoint = try Checkpoint(text: try SignedNote(parsing: [UInt8](held)).text) } catch {
                throw SyncError.localFileDamaged(path: checkpointPath, reason: "\(error)")
            }
            previous = heldCheckpoint.size
            switch try await log.standing(of: checkpoint, after: heldCheckpoint) {
            case .same, .extends: break
            case .older:
                throw SyncError.logRefused(reason: "refused to cosign: the upstream serves size \(checkpoint.size), older than size \(heldCheckpoint.size) already cosigned")
            case let .fork(reason):
                let folder = try keepEvidence(held: [UInt8](held), served: served)
                throw SyncError.logFork(reason: "refused to cosign: \(reason)", evidence: folder)
            }
        }
        try note.sign(with: signer)
        let cosigned = note.bytes
        try io {
            if !FileIO.exists(logKeyPath) || logKey != nil { try FileIO.writeAtomically(Data(pinned.fileText.utf8), to: logKeyPath) }
            try FileIO.writeAtomically(Data(origin.utf8), to: originPath)
            try FileIO.writeAtomically(Data((signer.verifier.vkey + "\n").utf8), to: vkeyPath)
            try FileIO.writeAtomically(Data(cosigned), to: checkpointPath)
        }
        return Cosigned(checkpoint: checkpoint, note: cosigned, previousSize: previous, verifierKey: signer.verifier.vkey)
    }

    private func keepEvidence(held: [UInt8], served: [UInt8]) throws -> String {
        let folder = "\(state)/forks/\(Timestamp.format(now()).replacingOccurrences(of: ":", with: ""))"
        try io {
            try FileIO.createDirectory(folder)
            try FileIO.writeAtomically(Data(held), to: "\(folder)/cosigned-checkpoint")
            try FileIO.writeAtomically(Data(served), to: "\(folder)/served-checkpoint")
        }
        return folder
    }

    private func io(_ body: () throws -> Void) throws {
        do { try body() } catch let e as FormatError { throw SyncError.from(e) }
    }
}
