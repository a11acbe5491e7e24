import CorpusFormat
import Foundation

/// The transparency-log step of a catalog refresh (docs/format.md "Transparency log", "What a
/// client checks"): the served checkpoint must be signed by a catalog key of the newest root, carry
/// the cosignatures the remote requires, be consistent with the checkpoint accepted before, and
/// include the catalog version being accepted; all proofs come from the tree's tiles.
///
/// A tree without a log passes (trees published before logs existed), unless the remote requires
/// witnesses or a log was accepted from it before. A fork — a checkpoint no append-only log could
/// have signed after the accepted one, or beside the pending one — keeps both notes in the home
/// folder, the one thing this refusal writes; it is looked for before the cosignatures are
/// counted, so that a fork is a fork whether or not the witnesses saw it. A checkpoint that holds
/// up but lacks cosignatures is not cosigned yet (`SyncError.logNotCosigned`): the refresh keeps
/// what was accepted before, and the note is kept as the remote's pending checkpoint, the one
/// thing that refusal writes: a view shown to this client alone, which no witness will cosign,
/// then forks from the cosigned one whichever source (this refresh's next, or a later refresh's)
/// serves it.
struct TreeLogCheck: Sendable {
    /// How far back from the end of the log the catalog's leaf is looked for: a publish appends it
    /// last, after at most a few root versions; a later publish may have appended more meanwhile.
    static let searchedLeaves: UInt64 = 2 * UInt64(TilePath.width)

    let home: HomeLayout
    let client: HTTPClient
    let now: @Sendable () -> Date

    /// `pending`, with the log it was checked against; unchanged when the refresh ended in a 304.
    func checked(_ pending: CatalogFetcher.Pending, from source: Source) async throws -> CatalogFetcher.Pending {
        let fresh = pending.accepted != nil || pending.fetch != nil || pending.timestamp != nil || !pending.links.isEmpty
        guard fresh, pending.unrefreshed == nil else { return pending }
        let remote = pending.remote
        guard let catalogBytes = try pending.accepted?.bytes ?? CatalogState(home: home).accepted(remote.name)?.bytes else { return pending }
        let catalog = pending.update.catalog
        let state = LogState(home: home)
        var held = try state.acceptedCheckpoint(remote.name)
        let witnesses = try remote.witnessRequirement()
        let log = RemoteLog(client: client, source: source)

        guard let served = try await log.checkpointBytes() else {
            if let witnesses {
                throw SyncError.logRefused(reason: "the tree serves no \(TreeLog.checkpoint), and this remote requires \(witnesses.threshold) witness cosignature(s)")
            }
            if held != nil { throw SyncError.logRefused(reason: "the tree served a log before and serves no \(TreeLog.checkpoint) now") }
            return pending
        }
        let origin = TreeLog.origin(catalogID: catalog.id)
        let verifiers = try pending.root.catalogKeys.map { try $0.noteVerifier(keyName: origin) as any NoteVerifier }
        let checkpoint: Checkpoint, note: SignedNote
        do {
            (checkpoint, note) = try Checkpoint.open(served, origin: origin, verifiers: verifiers)
        } catch let e as TransparencyLogError {
            throw SyncError.logRefused(reason: "\(TreeLog.checkpoint): \(e)")
        }
        // A checkpoint signed by a key the newest root no longer lists (stolen online keys, since
        // rotated) sets no floor, as a catalog it signed sets none (TUF fast-forward recovery).
        if let h = held, (try? Checkpoint.open(h.note, origin: origin, verifiers: verifiers)) == nil { held = nil }
        // Counted now, so that a listed witness's bad cosignature is refused before anything is
        // fetched; judged last (below), once the note is known to be no fork.
        let cosigned = try witnesses.map { try Self.cosignatures(note, $0) }

        let leaf: LogLeaf
        do { leaf = try LogLeaf(accepted: [UInt8](catalogBytes), catalogID: catalog.id, version: catalog.version, isTop: catalog.parts != nil) } catch {
            throw SyncError.logRefused(reason: "\(error)")
        }
        let leafHash = MerkleHash.leaf(leaf.bytes)
        let old = held?.checkpoint
        if let old, let heldNote = held?.note {
            let fork = { (reason: String) async throws -> SyncError in
                let folder = try state.keepEvidence(remote: remote.name, forkedFrom: .accepted(heldNote), served: served, source: source.baseURL, now: now())
                return SyncError.logFork(reason: reason, evidence: folder)
            }
            if checkpoint.size < old.size {
                throw SyncError.logRefused(reason: "the served checkpoint (size \(checkpoint.size)) is older than the one accepted (size \(old.size))")
            }
            if checkpoint.size == old.size && checkpoint.rootHash != old.rootHash {
                throw try await fork("two checkpoints of size \(old.size) with different roots")
            }
        }
        // Consistency from the accepted size, and the catalog's leaf near the end with its inclusion proof.
        let n = checkpoint.size
        guard n > 0 else { throw SyncError.logRefused(reason: "catalog version \(catalog.version) is not in the log (it is empty)") }
        let from = old.map { $0.size } ?? 0
        let proofs = try await log.reading(treeSize: n, prefetch: { try LogRefreshProofs.prefetch($0, from: from) }) {
            try LogRefreshProofs.compute($0, from: from, leafHash: leafHash, searched: Self.searchedLeaves)
        }.result
        if let old, let heldNote = held?.note, old.size < n {
            do {
                try MerkleProof.verifyConsistency(from: old.size, oldRoot: old.rootHash, to: n, newRoot: checkpoint.rootHash, proof: proofs.consistency)
            } catch {
                let folder = try state.keepEvidence(remote: remote.name, forkedFrom: .accepted(heldNote), served: served, source: source.baseURL, now: now())
                throw SyncError.logFork(reason: "the checkpoint of size \(n) does not extend the accepted one of size \(old.size)", evidence: folder)
            }
        }
        let pendingStanding = try await standing(of: checkpoint, served: served, log: log, remote: remote.name, origin: origin, verifiers: verifiers)
        guard let index = proofs.index else {
            throw SyncError.logRefused(reason: "catalog \(catalog.id) version \(catalog.version) is not among the last \(min(n, Self.searchedLeaves)) leaves of the log")
        }
        do {
            try MerkleProof.verifyInclusion(leafHash: leafHash, index: index, size: n, proof: proofs.inclusion, root: checkpoint.rootHash)
        } catch {
            throw SyncError.logRefused(reason: "\(error)")
        }
        // Too few cosignatures on a checkpoint that extends what was accepted is the window between
        // `corpusd publish` and `corpusd cosign`, or a view the witnesses were never shown: this
        // client cannot tell which, so it is no attack yet. The note is kept as pending (a newer
        // one replaces it only when it extends it), so that the other view, wherever it is seen,
        // shows the fork.
        if let witnesses, let cosigned, cosigned < witnesses.threshold {
            if [.none, .unverified, .extends].contains(pendingStanding) {
                try state.keepPending(LogState.PendingNote(note: served, source: source.baseURL), remote: remote.name)
            }
            throw SyncError.logNotCosigned(treeSize: n, cosigned: cosigned, required: witnesses.threshold)
        }
        var out = pending
        out.log = LogState.Accepted(inclusion: LogInclusion(leaf: leaf, index: index, proof: proofs.inclusion, note: served), checkpoint: checkpoint,
                                    dropsPending: pendingStanding == .same || pendingStanding == .extends || pendingStanding == .unverified)
        return out
    }

    /// How the served checkpoint stands to the remote's pending one.
    enum PendingStanding: Equatable {
        /// No pending checkpoint.
        case none
        /// The pending note no catalog key of the newest root verifies: it compares with nothing.
        case unverified
        case same, extends
        /// Smaller than the pending one: compared once the log served has caught up with it.
        case older
    }

    /// Compares `checkpoint` with the pending one (RemoteLog.standing, from this source's tiles);
    /// a fork keeps both notes and is thrown.
    private func standing(of checkpoint: Checkpoint, served: [UInt8], log: RemoteLog, remote: String, origin: String,
                          verifiers: [any NoteVerifier]) async throws -> PendingStanding {
        let state = LogState(home: home)
        guard let held = state.pendingCheckpoint(remote) else { return .none }
        guard let heldCheckpoint = try? Checkpoint.open(held.note, origin: origin, verifiers: verifiers).checkpoint else { return .unverified }
        switch try await log.standing(of: checkpoint, after: heldCheckpoint) {
        case .same: return .same
        case .extends: return .extends
        case .older: return .older
        case let .fork(reason):
            let folder = try state.keepEvidence(remote: remote, forkedFrom: .pending(held), served: served, source: log.source.baseURL, now: now())
            throw SyncError.logFork(reason: "against the pending checkpoint (refused before as not cosigned): \(reason)", evidence: folder)
        }
    }

    /// How many distinct witnesses of `witnesses` cosigned; a cosignature by a listed witness that
    /// does not verify is a refusal.
    static func cosignatures(_ note: SignedNote, _ witnesses: (verifiers: [any NoteVerifier], threshold: Int)) throws -> Int {
        let good: [SignedNote.Signature]
        do {
            good = try note.verified(by: witnesses.verifiers)
        } catch TransparencyLogError.noTrustedSignature {
            good = []
        } catch {
            throw SyncError.logRefused(reason: "\(TreeLog.checkpoint): \(error)")
        }
        return Set(good.map { "\($0.keyName)+\($0.keyID)" }).count
    }
}
