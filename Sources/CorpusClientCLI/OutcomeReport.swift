import Foundation
import CorpusCLIKit
import CorpusSync

/// The per-corpus results of `install` and `sync`.
extension ClientCommand {
    /// Prints per-corpus results; the exit code is that of the first refusal.
    func report(_ outcomes: [CorpusClient.Outcome], verb: String) -> Int32 {
        let firstFailure = outcomes.first { $0.error != nil }?.error
        // A delta not used is said on stderr in both modes, one line each (--json also names it in the result).
        for o in outcomes {
            guard let e = o.deltaError else { continue }
            console.err("note: \(o.name): the delta was not used (\(e.description)); " +
                        (o.error == nil ? "the full bundle was downloaded instead" : "the full bundle was tried instead"))
        }
        if console.json {
            console.emit(OutcomeResults(outcomes))
        } else {
            for o in outcomes {
                switch o.kind {
                case .installed: console.info("installed \(o.name) \(o.version ?? "")")
                case .updated:
                    let how = o.via.map { " (\($0 == .delta ? "delta" : "full bundle"), \(ByteFormat.size(o.bytesDownloaded ?? 0)))" } ?? ""
                    console.info("updated \(o.name) \(o.previousVersion ?? "") → \(o.version ?? "")\(how)")
                case .unchanged: console.info("\(o.name) \(o.version ?? "") is up to date")
                case .repaired: console.info("repaired \(o.name) \(o.version ?? ""): its installed files did not verify, so it was downloaded and installed again")
                case .removed: console.info("removed \(o.name)")
                case .failed:
                    let rep = o.error.map(ClientErrors.report)
                    console.err("error: \(o.name): \(rep?.message ?? "failed")" + (rep.map { $0.hint.isEmpty ? "" : " (\($0.hint))" } ?? ""))
                }
            }
            if outcomes.allSatisfy({ $0.kind == .unchanged }) && verb == "sync" { console.info("nothing to do") }
        }
        return ClientErrors.exitCode(firstRefusal: firstFailure)
    }
}

/// `install --json` and `sync --json`: `{"results": [...], "changed": N, "failed": N}`.
struct OutcomeResults: Encodable {
    struct Result: Encodable {
        let corpus: String
        let status: String
        let version: String?
        let previousVersion: String?
        let error: ErrorBody?
        /// `delta` or `full` for what was installed, updated or repaired.
        let via: String?
        let bytesDownloaded: Int64?
        /// The delta that was tried and not used.
        let deltaError: ErrorBody?

        enum CodingKeys: String, CodingKey {
            case corpus, status, version, error, via
            case previousVersion = "previous_version"
            case bytesDownloaded = "bytes_downloaded"
            case deltaError = "delta_error"
        }
    }

    let results: [Result]
    let changed: Int
    let failed: Int

    init(_ outcomes: [CorpusClient.Outcome]) {
        results = outcomes.map { o in
            Result(corpus: o.name, status: o.kind.rawValue, version: o.version, previousVersion: o.previousVersion,
                   error: o.error.map { ErrorBody(ClientErrors.report($0)) }, via: o.via?.rawValue, bytesDownloaded: o.bytesDownloaded,
                   deltaError: o.deltaError.map { ErrorBody(ClientErrors.report($0)) })
        }
        changed = outcomes.filter(\.changed).count
        failed = outcomes.filter { $0.error != nil }.count
    }
}
