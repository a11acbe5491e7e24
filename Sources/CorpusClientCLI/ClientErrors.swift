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

    /// A client-library error: its code, line and kind as `SyncError` classifies them, with the
    /// hint that names the `corpus` command that helps.
    static func from(sync e: SyncError) -> ErrorReport {
        ErrorReport(code: e.code, message: e.headline, hint: hint(e), kind: FailureKind(e.category))
    }

    static func hint(_ e: SyncError) -> String {
        switch e {
        case .rollback, .entryRollback: return "a server is replaying an old catalog; try again later or another mirror"
        case .expired: return "the server has not published a fresh catalog; tell its operator"
        case .timestampExpired: return "the server or mirror serves frozen content; try again later or another mirror, or tell its operator"
        case .timestampRollback: return "a server is replaying an old timestamp; try again later or another mirror"
        case .timestampMissing: return "the server or mirror serves an incomplete tree; try another mirror or tell its operator"
        case .rootExpired: return "the publisher's root key holders must sign a new root (corpusd root draft/sign/publish); tell them"
        case .rootNotTrusted: return "the tree's new root is not signed by enough of the root keys you trust; tell the publisher"
        case .unsupportedFormat: return "update corpus to a release that reads this catalog"
        case .logRefused: return "the catalog was not accepted; try another mirror, or tell the publisher (and its witnesses)"
        case .logNotCosigned:
            return "a catalog accepted before stays in use, and the checkpoint is kept as pending, only to compare with the next; its publisher has not yet added its witnesses' cosignatures (corpusd cosign): try again later"
        case .logFork: return "nothing was accepted; send the kept checkpoints to the publisher and the witnesses, or compare with another client (corpus verify --log FILE)"
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict:
            return "check that the key you pinned is the publisher's (corpus remote add … --trust)"
        case .hashMismatch, .sizeExceeded, .sizeMismatch:
            return "the download was damaged or tampered with and was discarded; retry or use another mirror"
        case .catalogMismatch, .malformed: return "the catalog or bundle is not usable; tell its publisher"
        case .unsafePack: return "the bundle is signed but its pack is damaged or unsafe; nothing was installed; tell the catalog's publisher"
        case .delta: return "nothing of it was kept; the full bundle is installed instead (corpus sync)"
        case .decryption: return "nothing was installed and no plaintext was kept; if it persists, tell the catalog's publisher"
        case .wantedNotOffered: return "correct the wanted-file; corpus catalog lists what is offered"
        case .localFileDamaged: return e.localFileAdvice ?? ""
        case .entitlementRequired: return "get a token from the publisher and pass it with --token, CORPUS_TOKEN or corpus login"
        case .entitlementDenied: return "ask the publisher for a token that covers this corpus"
        case .importLimit: return "remove a corpus you no longer need (corpus remove ID) or get a token with a higher limit; bundled corpora do not count"
        case .offline: return "run it without --offline and with CORPUS_OFFLINE unset once the network is there; catalog, show, status, search and verify work offline"
        case .network: return "check the connection and the catalog URL, or add a mirror (corpus remote add … --mirror URL)"
        case .notFound, .notInstalled: return "see what is offered with corpus catalog and what is installed with corpus list"
        case .insufficientSpace: return "free some space (corpus gc removes old versions) and retry"
        case .io where e.isOutOfSpace: return "free some space (corpus gc removes old versions) and retry"
        case .io: return "check the home folder's permissions and free space"
        case .lockHeld: return "wait for the other corpus command to finish, then retry"
        case .cancelled, .unexpected: return ""
        case let .ambiguousName(_, candidates): return "name it with its catalog, as CATALOG/ID: one of \(candidates.joined(separator: ", "))"
        case let .remotePinned(name, _, _):
            return "if the publisher did change its key, run corpus remote remove \(name), then corpus remote add again; otherwise check the .pub file"
        case .reservedRemoteName: return "choose another name for the remote"
        case .invalidRemote: return "a remote name is 1-64 of a-z 0-9 . _ - (starting with a letter or digit); its URLs start with http:// or https://"
        case .unsafeRequest: return "check the token and the catalog's URLs (corpus remote list); a request never carries control characters"
        case .httpLibrary: return "corpus loads the system's libcurl at the first request and needs libcurl \(CurlOptionError.minimumLibcurlVersion) or newer, with HTTPS"
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
        case .documentNotFound, .passageNotFound:
            return ErrorReport(code: "not-found", message: e.description, hint: "corpus documents ID lists the documents and their sections", kind: .notFound)
        case .corpusAmbiguous:
            return ErrorReport(code: "usage", message: e.description, hint: "name it with its catalog, as CATALOG/ID", kind: .usage)
        case .invalidBrowseRequest:
            return ErrorReport(code: "usage", message: "\(e.description): the document is named by its path in the corpus, as corpus documents lists it",
                               hint: "corpus documents ID lists the documents", kind: .usage)
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
