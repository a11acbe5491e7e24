import CorpusCLIKit
import CorpusSync

/// A refused `corpusd mirror` run as its operator sees it. The codes and exit codes are those of
/// `corpus` for the same refusal (docs/cli.md); the hints are about the mirror's own flags.
enum MirrorErrors {
    static func report(_ e: SyncError) -> ErrorReport {
        let m = e.description
        switch e {
        case .rollback:
            return ErrorReport(code: "rollback", message: "refused the catalog: \(m)", hint: "the upstream is replaying an old catalog; the mirror keeps serving the newer one it holds", kind: .verification)
        case .expired:
            return ErrorReport(code: "expired", message: "refused the catalog: \(m)", hint: "the upstream has not published a fresh catalog; tell its operator", kind: .verification)
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict:
            return ErrorReport(code: "signature", message: "refused: \(m)", hint: "check that --trust is the upstream's root public key", kind: .verification)
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return ErrorReport(code: "integrity", message: "refused: \(m)", hint: "the download was damaged or tampered with and was discarded; nothing changed; run corpusd mirror again", kind: .verification)
        case .catalogMismatch, .malformed:
            return ErrorReport(code: "unsafe-input", message: "refused: \(m)", hint: "the upstream's tree is not usable; tell its publisher", kind: .verification)
        case .unsafePack:
            return ErrorReport(code: "unsafe-pack", message: "refused: \(m)", hint: "the upstream's tree is not usable; tell its publisher", kind: .verification)
        case .delta:
            return ErrorReport(code: "delta", message: "refused: \(m)", hint: "the upstream's tree is not usable; tell its publisher", kind: .verification)
        case .entitlementRequired, .entitlementDenied:
            return ErrorReport(code: "entitlement", message: m, hint: "pass a token that covers the entitled corpora with --token (or CORPUS_TOKEN)", kind: .entitlement)
        case .importLimit:
            // A mirror installs nothing; kept for the code the client gives the same refusal.
            return ErrorReport(code: "import-limit", message: m, hint: "", kind: .entitlement)
        case .network:
            return ErrorReport(code: "network", message: m, hint: "check the connection and UPSTREAM_URL", kind: .network)
        case .notFound, .notInstalled, .wantedNotOffered:
            return ErrorReport(code: "not-found", message: m, hint: "UPSTREAM_URL must be the folder that holds the tree's catalog.json", kind: .notFound)
        case .insufficientSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space, then run corpusd mirror again", kind: .localIO)
        case .io where e.isOutOfSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space, then run corpusd mirror again", kind: .localIO)
        case .io:
            return ErrorReport(code: "io", message: m, hint: "check the permissions and free space of the --out folder", kind: .localIO)
        case .localFileDamaged:
            return ErrorReport(code: "local-file", message: m, hint: "move the --out folder aside and mirror afresh", kind: .localIO)
        case .lockHeld:
            return ErrorReport(code: "lock-held", message: m, hint: "another corpusd mirror run is updating this folder; wait for it to finish", kind: .localIO)
        case .cancelled:
            return ErrorReport(code: "cancelled", message: m, hint: "", kind: .failure)
        case .unexpected:
            return ErrorReport(code: "failed", message: m, hint: "", kind: .failure)
        case .ambiguousName, .remotePinned, .reservedRemoteName, .invalidRemote:
            // The client's own mistakes; a mirror run names no corpus and adds no remote.
            return ErrorReport(code: "usage", message: m, hint: "run corpusd mirror --help", kind: .usage)
        }
    }
}
