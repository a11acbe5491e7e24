import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus verify [ID]`
struct VerifyCommand: ClientCommand {
    static let log = Option.flag("--log", "check the kept transparency-log inclusion proofs offline instead of the files")
    static let against = Option.path("--against", "CHECKPOINT", "with --log: compare with another client's checkpoint (its state/<remote>/checkpoint or a kept proof)")
    static let spec = CommandSpec(["verify"], "re-check installed files against their signed manifests", positionals: .optional("ID").completing(.installedIDs),
                                  options: [log, against])

    let context: ClientContext

    func run() throws -> Int32 {
        if cmd.has(Self.log) { return try LogVerifyReport(context: context).run(against: cmd.value(Self.against)) }
        if cmd.value(Self.against) != nil { throw UsageError.badValue(option: "--against", value: cmd.value(Self.against) ?? "", problem: "it goes with --log") }
        let results = try client.verify(cmd.positionals.first)
        let first = results.first { $0.error != nil }?.error
        if console.json {
            console.emit(Verified(verified: results.map { r in
                Verified.Entry(corpus: r.name, ok: r.error == nil && !r.removed, error: r.error.map {
                    ErrorBody(code: ClientErrors.report($0).code, message: $0.description, hint: RepairHint.verify($0, r.name))
                }, removed: r.removed ? true : nil)
            }))
        } else {
            if results.isEmpty { console.info("nothing installed to verify") }
            for r in results {
                if let e = r.error {
                    console.err("FAILED \(r.name): \(e.description) (\(RepairHint.verify(e, r.name)))")
                } else if r.removed {
                    console.info("removed \(r.name) (by another corpus command while it was being verified)")
                } else {
                    console.info("ok \(r.name)")
                }
            }
        }
        return ClientErrors.exitCode(firstRefusal: first)
    }

    /// `{"verified": [{"corpus", "ok", "error"?, "removed"?}]}`
    struct Verified: Encodable {
        struct Entry: Encodable {
            let corpus: String
            let ok: Bool
            let error: ErrorBody?
            /// `true` for a corpus another process removed while it was being checked (not `ok`,
            /// no `error`: neither verified nor damaged); absent otherwise.
            var removed: Bool? = nil
        }

        let verified: [Entry]
    }
}
