import CorpusCLIKit
import CorpusEngine
import CorpusMirror
import CorpusObjectStore
import CorpusFormat
import CorpusPublisher
import CorpusServer
import CorpusSync

/// How the errors of the publisher, the server and the mirror read on the `corpusd` command line.
enum ServerErrors {
    /// Every error of a `corpusd` command as the report the user sees.
    static func report(_ error: Error) -> ErrorReport {
        ErrorReport.from(error, domain: domain)
    }

    static func domain(_ error: Error) -> ErrorReport? {
        switch error {
        case let e as PublisherError:
            return PublisherErrors.report(e)
        case let e as SyncError:
            // Only `corpusd mirror` uses the client library: its refusals are the mirror's.
            return MirrorErrors.report(e)
        case let e as ServerError:
            // The root was checked before: what fails here is taking the listen address.
            return ErrorReport(code: "listen", message: e.description, hint: "choose another --listen address or stop what uses it", kind: .localIO)
        case let e as ObjectStoreError:
            return ObjectStoreErrors.report(e)
        case let e as S3ConfigurationError:
            return ObjectStoreErrors.report(e)
        case let e as TransparencyLogError:
            return ErrorReport(code: "log", message: "refused: the tree's transparency log: \(e.description)",
                               hint: "the log/ folder was changed outside corpusd publish; restore it from a backup or a mirror (docs/operations.md)",
                               kind: e.isVerificationRefusal ? .verification : .usage)
        case let e as SQLiteError:
            return ErrorReport(code: "sqlite", message: e.description, hint: "check the output folder's free space and permissions", kind: .localIO)
        default:
            return nil
        }
    }
}
