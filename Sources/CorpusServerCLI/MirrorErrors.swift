import CorpusCLIKit
import CorpusSync

/// A refused `corpusd mirror` run as its operator sees it. The codes and exit codes are those of
/// `corpus` for the same refusal (docs/cli.md); the hints are about the mirror's own flags.
enum MirrorErrors {
    static func report(_ e: SyncError) -> ErrorReport {
        ErrorReport(code: e.code, message: e.headline, hint: hint(e), kind: FailureKind(e.category))
    }

    /// What the mirror's operator can do, in terms of the mirror's own flags.
    static func hint(_ e: SyncError) -> String {
        switch e {
        case .rollback, .entryRollback: return "the upstream is replaying an old catalog; the mirror keeps serving the newer one it holds"
        case .expired: return "the upstream has not published a fresh catalog; tell its operator"
        case .timestampExpired, .timestampMissing: return "the upstream serves no current timestamp.json; run the mirror against the origin, or tell its operator"
        case .timestampRollback: return "the upstream is replaying an old timestamp; the mirror keeps serving the newer one it holds"
        case .rootExpired: return "the upstream's newest root has expired; its root key holders must sign a new one"
        case .rootNotTrusted: return "the upstream's new root is not signed by enough root keys; tell its publisher"
        case .unsupportedFormat: return "update corpusd to a release that reads this tree"
        case .logRefused: return "the upstream's log does not hold up; nothing changed; tell its publisher"
        case .logNotCosigned: return "the upstream's newest checkpoint is not cosigned yet; nothing changed; run corpusd mirror again after its publisher ran corpusd cosign"
        case .logFork: return "the upstream signed a checkpoint that forks from one seen before; nothing changed; send the kept checkpoints to its publisher and witnesses"
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict: return "check that --trust is the upstream's root public key"
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return "the download was damaged or tampered with and was discarded; nothing changed; run corpusd mirror again"
        case .catalogMismatch, .malformed, .unsafePack, .delta, .decryption: return "the upstream's tree is not usable; tell its publisher"
        case .entitlementRequired, .entitlementDenied: return "pass a token that covers the entitled corpora with --token (or CORPUS_TOKEN)"
        case .importLimit, .cancelled, .unexpected, .offline: return ""  // a mirror installs nothing, and has no offline mode
        case .network: return "check the connection and UPSTREAM_URL"
        case .notFound, .notInstalled, .wantedNotOffered: return "UPSTREAM_URL must be the folder that holds the tree's catalog.json"
        case .insufficientSpace: return "free some space, then run corpusd mirror again"
        case .io where e.isOutOfSpace: return "free some space, then run corpusd mirror again"
        case .io: return "check the permissions and free space of the --out folder"
        case .localFileDamaged: return "move the --out folder aside and mirror afresh"
        case .lockHeld: return "another corpusd mirror run is updating this folder; wait for it to finish"
        case .unsafeRequest: return "check --token and UPSTREAM_URL; a request never carries control characters"
        case .httpLibrary: return "corpusd loads the system's libcurl at the first request and needs libcurl \(CurlOptionError.minimumLibcurlVersion) or newer, with HTTPS"
        case .ambiguousName, .remotePinned, .reservedRemoteName, .invalidRemote:
            // The client's own mistakes; a mirror run names no corpus and adds no remote.
            return "run corpusd mirror --help"
        }
    }
}
