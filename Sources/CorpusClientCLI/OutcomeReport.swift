import Foundation
import CorpusCLIKit
import CorpusSync

/// The per-corpus results of `install` and `sync`.
extension ClientCommand {
    /// Prints per-corpus results; the exit code is that of the first refusal.
    func report(_ outcomes: [CorpusClient.Outcome], verb: String) -> Int32 {
        let firstFailure = outcomes.first { $0.error != nil }?.error
        if console.json {
            var results: [[String: Any]] = []
            for o in outcomes {
                var r: [String: Any] = ["corpus": o.name, "status": o.kind.rawValue]
                if let v = o.version { r["version"] = v }
                if let p = o.previousVersion { r["previous_version"] = p }
                if let e = o.error {
                    let rep = ClientErrors.report(e)
                    r["error"] = ["code": rep.code, "message": rep.message, "hint": rep.hint]
                }
                results.append(r)
            }
            let changed = outcomes.filter(\.changed).count
            console.emit(["results": results, "changed": changed, "failed": outcomes.filter { $0.error != nil }.count])
        } else {
            for o in outcomes {
                switch o.kind {
                case .installed: console.info("installed \(o.name) \(o.version ?? "")")
                case .updated: console.info("updated \(o.name) \(o.previousVersion ?? "") → \(o.version ?? "")")
                case .unchanged: console.info("\(o.name) \(o.version ?? "") is up to date")
                case .repaired: console.info("repaired \(o.name) \(o.version ?? ""): its installed files did not verify, so it was downloaded and installed again")
                case .removed: console.info("removed \(o.name)")
                case .failed:
                    let rep = ClientErrors.report(o.error!)
                    console.err("error: \(o.name): \(rep.message)" + (rep.hint.isEmpty ? "" : " (\(rep.hint))"))
                }
            }
            if outcomes.allSatisfy({ $0.kind == .unchanged }) && verb == "sync" { console.info("nothing to do") }
        }
        return firstFailure.map { ClientErrors.report($0).exit.rawValue } ?? 0
    }
}
