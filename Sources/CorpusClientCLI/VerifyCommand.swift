import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus verify [ID]`
struct VerifyCommand: ClientCommand {
    static let spec = CommandSpec(["verify"], "re-check installed files against their signed manifests", positionals: .optional("ID"))

    let context: ClientContext

    func run() throws -> Int32 {
        let results = try client.verify(cmd.positionals.first)
        let first = results.first { $0.error != nil }?.error
        if console.json {
            console.emit(["verified": results.map { r -> [String: Any] in
                var o: [String: Any] = ["corpus": r.name, "ok": r.error == nil]
                if let e = r.error { o["error"] = ["code": ClientErrors.report(e).code, "message": e.description, "hint": RepairHint.verify(e, r.name)] }
                return o
            }])
        } else {
            if results.isEmpty { console.info("nothing installed to verify") }
            for r in results {
                if let e = r.error { console.err("FAILED \(r.name): \(e.description) (\(RepairHint.verify(e, r.name)))") } else { console.info("ok \(r.name)") }
            }
        }
        return first.map { ClientErrors.report($0).exit.rawValue } ?? 0
    }
}
