import CorpusCLIKit
import CorpusEngine
import CorpusSync

/// How the errors of the client library and the engine read on the `corpus` command line: each
/// gets its code, its exit code and a hint naming the `corpus` command that helps.
enum ClientErrors {
    /// Every error of a `corpus` command as the report the user sees.
    static func report(_ error: Error) -> ErrorReport {
        ErrorReport.from(error, domain: domain)
    }

    static func domain(_ error: Error) -> ErrorReport? {
        switch error {
        case let e as SyncError:
            return from(sync: e)
        case let e as EngineError:
            return from(engine: e)
        case let e as SQLiteError:
            return ErrorReport(code: "sqlite", message: e.description, hint: "the pack may be damaged; run corpus verify", exit: .localIO)
        case let e as SyncLockError:
            return ErrorReport(code: "lock-held", message: e.description, hint: "wait for the other corpus command to finish, then retry", exit: .localIO)
        default:
            return nil
        }
    }

    static func from(sync e: SyncError) -> ErrorReport {
        let m = e.description
        switch e {
        case .rollback:
            return ErrorReport(code: "rollback", message: "refused the catalog: \(m)", hint: "a server is replaying an old catalog; try again later or another mirror", exit: .verification)
        case .expired:
            return ErrorReport(code: "expired", message: "refused the catalog: \(m)", hint: "the server has not published a fresh catalog; tell its operator", exit: .verification)
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict:
            return ErrorReport(code: "signature", message: "refused: \(m)", hint: "check that the key you pinned is the publisher's (corpus remote add … --trust)", exit: .verification)
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return ErrorReport(code: "integrity", message: "refused: \(m)", hint: "the download was damaged or tampered with and was discarded; retry or use another mirror", exit: .verification)
        case .catalogMismatch, .malformed:
            return ErrorReport(code: "unsafe-input", message: "refused: \(m)", hint: "the catalog or bundle is not usable; tell its publisher", exit: .verification)
        case .unsafePack:
            return ErrorReport(code: "unsafe-pack", message: "refused: \(m)",
                               hint: "the bundle is signed but its pack is damaged or unsafe; nothing was installed; tell the catalog's publisher", exit: .verification)
        case .wantedNotOffered:
            return ErrorReport(code: "not-found", message: m, hint: "correct the wanted-file; corpus catalog lists what is offered", exit: .notFound)
        case .localFileDamaged:
            return ErrorReport(code: "local-file", message: m, hint: e.localFileAdvice ?? "", exit: .localIO)
        case .entitlementRequired:
            return ErrorReport(code: "entitlement", message: m, hint: "get a token from the publisher and pass it with --token, CORPUS_TOKEN or corpus login", exit: .entitlement)
        case .entitlementDenied:
            return ErrorReport(code: "entitlement", message: m, hint: "ask the publisher for a token that covers this corpus", exit: .entitlement)
        case let .importLimit(used, limit):
            return ErrorReport(code: "import-limit", message: "refused before downloading: import limit reached (\(used) of \(limit) used)",
                               hint: "remove a corpus you no longer need (corpus remove ID) or get a token with a higher limit; bundled corpora do not count", exit: .entitlement)
        case .network:
            return ErrorReport(code: "network", message: m, hint: "check the connection and the catalog URL, or add a mirror (corpus remote add … --mirror URL)", exit: .network)
        case .notFound, .notInstalled:
            return ErrorReport(code: "not-found", message: m, hint: "see what is offered with corpus catalog and what is installed with corpus list", exit: .notFound)
        case .insufficientSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space (corpus gc removes old versions) and retry", exit: .localIO)
        case .lockHeld:
            return ErrorReport(code: "lock-held", message: m, hint: "wait for the other corpus command to finish, then retry", exit: .localIO)
        case .io where e.isOutOfSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space (corpus gc removes old versions) and retry", exit: .localIO)
        case .io:
            return ErrorReport(code: "io", message: m, hint: "check the home folder's permissions and free space", exit: .localIO)
        case .cancelled:
            return ErrorReport(code: "cancelled", message: m, hint: "", exit: .failure)
        }
    }

    static func from(engine e: EngineError) -> ErrorReport {
        if case .embedderModelMismatch = e {
            return ErrorReport(code: "embedder-mismatch", message: "refused: \(e.description)",
                               hint: "remove the corpus and run corpus gc, then install it again (that fetches the model afresh)", exit: .verification)
        }
        if e.isVerificationRefusal {
            return ErrorReport(code: "unsafe-pack", message: "refused: \(e.description)", hint: "remove and reinstall the corpus", exit: .verification)
        }
        switch e {
        case .corpusNotFound:
            return ErrorReport(code: "not-found", message: e.description, hint: "see what is installed with corpus list", exit: .notFound)
        case .embedderMismatch, .embedderUnsupported:
            return ErrorReport(code: "embedder", message: e.description, hint: "search with --lexical-only", exit: .verification)
        case .embedderNotInstalled:
            return ErrorReport(code: "embedder-missing", message: e.description,
                               hint: "run corpus sync (it installs the model from the catalog), or search with --lexical-only", exit: .notFound)
        default:
            return ErrorReport(code: "io", message: e.description, hint: "check the home folder; corpus verify re-checks installed files", exit: .localIO)
        }
    }
}
