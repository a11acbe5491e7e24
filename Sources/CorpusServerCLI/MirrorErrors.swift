import CorpusCLIKit
import CorpusSync

/// A refused `corpusd mirror` run as its operator sees it. The codes and exit codes are those of
/// `corpus` for the same refusal (docs/cli.md); the hints are about the mirror's own flags.
enum MirrorErrors {
    static func report(_ e: SyncError) -> ErrorReport {
        let m = e.description
        switch e {
        case .rollback:
            return ErrorReport(code: "rollback", message: "refused the catalog: \(m)", hint: "the upstream is replaying an old catalog; the mirror keeps serving the newer one it holds", exit: .verification)
        case .expired:
            return ErrorReport(code: "expired", message: "refused the catalog: \(m)", hint: "the upstream has not published a fresh catalog; tell its operator", exit: .verification)
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict:
            return ErrorReport(code: "signature", message: "refused: \(m)", hint: "check that --trust is the upstream's root public key", exit: .verification)
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return ErrorReport(code: "integrity", message: "refused: \(m)", hint: "the download was damaged or tampered with and was discarded; nothing changed; run corpusd mirror again", exit: .verification)
        case .catalogMismatch, .malformed, .unsafePack:
            return ErrorReport(code: "unsafe-input", message: "refused: \(m)", hint: "the upstream's tree is not usable; tell its publisher", exit: .verification)
        case .entitlementRequired, .entitlementDenied, .importLimit:
            return ErrorReport(code: "entitlement", message: m, hint: "pass a token that covers the entitled corpora with --token (or CORPUS_TOKEN)", exit: .entitlement)
        case .network:
            return ErrorReport(code: "network", message: m, hint: "check the connection and UPSTREAM_URL", exit: .network)
        case .notFound, .notInstalled, .wantedNotOffered:
            return ErrorReport(code: "not-found", message: m, hint: "UPSTREAM_URL must be the folder that holds the tree's catalog.json", exit: .notFound)
        case .insufficientSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space, then run corpusd mirror again", exit: .localIO)
        case .io where e.isOutOfSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space, then run corpusd mirror again", exit: .localIO)
        case .io, .localFileDamaged:
            return ErrorReport(code: "io", message: m, hint: "check the permissions and free space of the --out folder", exit: .localIO)
        case .lockHeld:
            return ErrorReport(code: "lock-held", message: m, hint: "another corpusd mirror run is updating this folder; wait for it to finish", exit: .localIO)
        case .cancelled:
            return ErrorReport(code: "cancelled", message: m, hint: "", exit: .failure)
        }
    }
}
