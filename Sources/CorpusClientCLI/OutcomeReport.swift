import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync

/// The per-corpus results of `install` and `sync`.
extension ClientCommand {
    /// Prints per-corpus results and every catalog that could not be refreshed; the exit code is
    /// that of the first refusal, else 5 (network) when a catalog could not be refreshed, else 0.
    func report(_ report: OperationReport, verb: String) -> Int32 {
        let outcomes = report.outcomes
        let firstFailure = outcomes.first { $0.error != nil }?.error
        // A delta not used is said on stderr in both modes, one line each (--json also names it in the result).
        for o in outcomes {
            guard let e = o.deltaError else { continue }
            console.err("note: \(o.name): the delta was not used (\(e.description)); " +
                        (o.error == nil ? "the full bundle was downloaded instead" : "the full bundle was tried instead"))
        }
        // Said on stderr in both modes: a script reading only the exit code sees 5, a person the why.
        for u in report.unrefreshed {
            console.err("error: \(OutcomeReportLines.unrefreshed(u)) (\(ClientErrors.hint(u.error)))")
        }
        // Never a silent downgrade: what is kept, and what the channel offers instead.
        for k in report.keptNewer { console.err("note: \(OutcomeReportLines.keptNewer(k))") }
        if console.json {
            console.emit(OutcomeResults(report))
        } else {
            for o in outcomes {
                switch o.kind {
                case .installed: console.info("installed \(o.name) \(o.version ?? "")")
                case .updated:
                    let how = o.via.map { " (\($0 == .delta ? "delta" : "full bundle"), \(ByteFormat.size(o.bytesDownloaded ?? 0)))" } ?? ""
                    console.info("updated \(o.name) \(o.previousVersion ?? "") → \(o.version ?? "")\(how)")
                case .unchanged where report.isUnchecked(o):
                    console.info("\(o.name) \(o.version ?? "") is installed; whether a newer version exists could not be checked")
                case .unchanged: console.info("\(o.name) \(o.version ?? "") is up to date")
                case .repaired: console.info("repaired \(o.name) \(o.version ?? ""): its installed files did not verify, so it was downloaded and installed again")
                case .removed: console.info("removed \(o.name)")
                case .failed:
                    let rep = o.error.map(ClientErrors.report)
                    console.err("error: \(o.name): \(rep?.message ?? "failed")" + (rep.map { $0.hint.isEmpty ? "" : " (\($0.hint))" } ?? ""))
                }
            }
            if outcomes.allSatisfy({ $0.kind == .unchanged }) && verb == "sync" && report.unrefreshed.isEmpty { console.info("nothing to do") }
        }
        if firstFailure == nil && !report.unrefreshed.isEmpty { return ExitCode.network.rawValue }
        return ClientErrors.exitCode(firstRefusal: firstFailure)
    }
}

/// The line that names a catalog used without being refreshed, the same on stderr and in `--json`.
enum OutcomeReportLines {
    /// `could not refresh catalog NAME: WHY; used catalog version V as accepted earlier, signed T, last fetched T`.
    static func unrefreshed(_ u: UnrefreshedCatalog) -> String {
        "could not refresh catalog \(u.remote): \(u.error.description); used catalog version \(u.catalogVersion) as accepted earlier, " +
            "signed \(u.signed), last fetched \(u.fetched.map(Timestamp.format) ?? "at an unknown time")"
    }
}

extension OutcomeReportLines {
    /// `keeps NAME V (newer than the V the CHANNEL channel offers); ...`.
    static func keptNewer(_ k: KeptNewerVersion) -> String {
        "keeps \(k.name) \(k.installed), newer than the \(k.offered) its catalog offers on the channels it follows (\(k.channel) offers \(k.offered)); " +
            "it is not downgraded: `corpus remove \(k.name)` then `corpus install \(k.name)` installs \(k.offered)"
    }
}

/// `install --json` and `sync --json`: `{"results": [...], "changed": N, "failed": N, "unrefreshed"?: [...]}`.
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

    /// `{"remote", "catalog_version", "signed", "fetched"?, "error": {…}}`: a catalog used as
    /// accepted earlier because it could not be refreshed; absent when every catalog was.
    struct Unrefreshed: Encodable {
        let remote: String
        let catalogVersion: Int
        let signed: String
        let fetched: String?
        let error: ErrorBody

        enum CodingKeys: String, CodingKey {
            case remote, signed, fetched, error
            case catalogVersion = "catalog_version"
        }
    }

    let results: [Result]
    let changed: Int
    let failed: Int
    let unrefreshed: [Unrefreshed]?
    /// `{"corpus", "installed", "offered", "channel"}`: kept versions newer than the channel offers; absent when none.
    let kept: [Kept]?

    struct Kept: Encodable {
        let corpus: String
        let installed: String
        let offered: String
        let channel: String
    }

    init(_ report: OperationReport) {
        kept = report.keptNewer.isEmpty ? nil : report.keptNewer.map {
            Kept(corpus: $0.name, installed: $0.installed.description, offered: $0.offered.description, channel: $0.channel)
        }
        let outcomes = report.outcomes
        unrefreshed = report.unrefreshed.isEmpty ? nil : report.unrefreshed.map { u in
            Unrefreshed(remote: u.remote, catalogVersion: u.catalogVersion, signed: u.signed, fetched: u.fetched.map(Timestamp.format),
                        error: ErrorBody(code: u.error.code, message: OutcomeReportLines.unrefreshed(u), hint: ClientErrors.hint(u.error)))
        }
        results = outcomes.map { o in
            Result(corpus: o.name, status: o.kind.rawValue, version: o.version, previousVersion: o.previousVersion,
                   error: o.error.map { ErrorBody(ClientErrors.report($0)) }, via: o.via?.rawValue, bytesDownloaded: o.bytesDownloaded,
                   deltaError: o.deltaError.map { ErrorBody(ClientErrors.report($0)) })
        }
        changed = outcomes.filter(\.changed).count
        failed = outcomes.filter { $0.error != nil }.count
    }
}
