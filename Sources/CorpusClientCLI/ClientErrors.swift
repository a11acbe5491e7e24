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

    /// The exit code of a command given several names: that of the first refusal, 0 when none.
    static func exitCode(firstRefusal: Error?) -> Int32 {
        firstRefusal.map { report($0).exit.rawValue } ?? 0
    }

    static func domain(_ error: Error) -> ErrorReport? {
        switch error {
        case let e as SyncError:
            return from(sync: e)
        case let e as EngineError:
            return from(engine: e)
        case let e as SQLiteError:
            return ErrorReport(code: "sqlite", message: e.description, hint: "the pack may be damaged; run corpus verify", kind: .localIO)
        default:
            return nil
        }
    }

    static func from(sync e: SyncError) -> ErrorReport {
        let m = e.description
        switch e {
        case .rollback:
            return ErrorReport(code: "rollback", message: "refused the catalog: \(m)", hint: "a server is replaying an old catalog; try again later or another mirror", kind: .verification)
        case .expired:
            return ErrorReport(code: "expired", message: "refused the catalog: \(m)", hint: "the server has not published a fresh catalog; tell its operator", kind: .verification)
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict:
            return ErrorReport(code: "signature", message: "refused: \(m)", hint: "check that the key you pinned is the publisher's (corpus remote add … --trust)", kind: .verification)
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return ErrorReport(code: "integrity", message: "refused: \(m)", hint: "the download was damaged or tampered with and was discarded; retry or use another mirror", kind: .verification)
        case .catalogMismatch, .malformed:
            return ErrorReport(code: "unsafe-input", message: "refused: \(m)", hint: "the catalog or bundle is not usable; tell its publisher", kind: .verification)
        case .unsafePack:
            return ErrorReport(code: "unsafe-pack", message: "refused: \(m)",
                               hint: "the bundle is signed but its pack is damaged or unsafe; nothing was installed; tell the catalog's publisher", kind: .verification)
        case .delta:
            return ErrorReport(code: "delta", message: "refused the delta: \(m)",
                               hint: "nothing of it was kept; the full bundle is installed instead (corpus sync)", kind: .verification)
        case .wantedNotOffered:
            return ErrorReport(code: "not-found", message: m, hint: "correct the wanted-file; corpus catalog lists what is offered", kind: .notFound)
        case .localFileDamaged:
            return ErrorReport(code: "local-file", message: m, hint: e.localFileAdvice ?? "", kind: .localIO)
        case .entitlementRequired:
            return ErrorReport(code: "entitlement", message: m, hint: "get a token from the publisher and pass it with --token, CORPUS_TOKEN or corpus login", kind: .entitlement)
        case .entitlementDenied:
            return ErrorReport(code: "entitlement", message: m, hint: "ask the publisher for a token that covers this corpus", kind: .entitlement)
        case let .importLimit(used, limit):
            return ErrorReport(code: "import-limit", message: "refused before downloading: import limit reached (\(used) of \(limit) used)",
                               hint: "remove a corpus you no longer need (corpus remove ID) or get a token with a higher limit; bundled corpora do not count", kind: .entitlement)
        case .network:
            return ErrorReport(code: "network", message: m, hint: "check the connection and the catalog URL, or add a mirror (corpus remote add … --mirror URL)", kind: .network)
        case .notFound, .notInstalled:
            return ErrorReport(code: "not-found", message: m, hint: "see what is offered with corpus catalog and what is installed with corpus list", kind: .notFound)
        case .insufficientSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space (corpus gc removes old versions) and retry", kind: .localIO)
        case .lockHeld:
            return ErrorReport(code: "lock-held", message: m, hint: "wait for the other corpus command to finish, then retry", kind: .localIO)
        case .io where e.isOutOfSpace:
            return ErrorReport(code: "disk-full", message: m, hint: "free some space (corpus gc removes old versions) and retry", kind: .localIO)
        case .io:
            return ErrorReport(code: "io", message: m, hint: "check the home folder's permissions and free space", kind: .localIO)
        case .cancelled:
            return ErrorReport(code: "cancelled", message: m, hint: "", kind: .failure)
        case .unexpected:
            return ErrorReport(code: "failed", message: m, hint: "", kind: .failure)
        case let .ambiguousName(_, candidates):
            return ErrorReport(code: "ambiguous-name", message: m, hint: "name it with its catalog, as CATALOG/ID: one of \(candidates.joined(separator: ", "))", kind: .usage)
        case let .remotePinned(name, _, _):
            return ErrorReport(code: "remote-pinned", message: m,
                               hint: "if the publisher did change its key, run corpus remote remove \(name), then corpus remote add again; otherwise check the .pub file", kind: .usage)
        case .reservedRemoteName:
            return ErrorReport(code: "reserved-name", message: m, hint: "choose another name for the remote", kind: .usage)
        case .invalidRemote:
            return ErrorReport(code: "invalid-remote", message: m,
                               hint: "a remote name is 1-64 of a-z 0-9 . _ - (starting with a letter or digit); its URLs start with http:// or https://", kind: .usage)
        }
    }

    static func from(engine e: EngineError) -> ErrorReport {
        if case .embedderModelMismatch = e {
            return ErrorReport(code: "embedder-mismatch", message: "refused: \(e.description)",
                               hint: "remove the corpus and run corpus gc, then install it again (that fetches the model afresh)", kind: .verification)
        }
        if e.isVerificationRefusal {
            return ErrorReport(code: "unsafe-pack", message: "refused: \(e.description)", hint: "remove and reinstall the corpus", kind: .verification)
        }
        switch e {
        case .corpusNotFound:
            return ErrorReport(code: "not-found", message: e.description, hint: "see what is installed with corpus list", kind: .notFound)
        case .embedderMismatch, .embedderUnsupported:
            return ErrorReport(code: "embedder", message: e.description, hint: "search with --lexical-only", kind: .verification)
        case .embedderNotInstalled:
            return ErrorReport(code: "embedder-missing", message: e.description,
                               hint: "run corpus sync (it installs the model from the catalog), or search with --lexical-only", kind: .notFound)
        default:
            return ErrorReport(code: "io", message: e.description, hint: "check the home folder; corpus verify re-checks installed files", kind: .localIO)
        }
    }
}
