import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync
import CorpusMirror

/// `corpusd witness UPSTREAM_URL --key KEY --state DIR [--trust PUB] [--name NAME]`
struct WitnessCommand: ServerCommand {
    static let key = Option.path("--key", "KEY", "the witness's own secret key (corpusd keygen); it cosigns").required()
    static let state = Option.path("--state", "DIR", "the witness's state: the log key it pinned and the last checkpoint it cosigned").required()
    static let trust = Option.path("--trust", "PUB", "the log's key, the publisher's catalog key (.pub); needed on the first run, pinned after")
    static let name = Option.text("--name", "NAME", "the witness's key name in cosignatures (default: witness-<key id>)")
    static let spec = CommandSpec(["witness"], "check that a tree's log only grows, and cosign its checkpoint; run again (from cron) to follow it",
                                  positionals: .exactly("UPSTREAM_URL"), options: [key, state, trust, name])

    let context: ServerContext

    func run() async throws -> Int32 {
        let upstream = cmd.positionals[0]
        try URLCredentials.refuse(upstream, option: "UPSTREAM_URL", instead: "give the URL alone")
        guard let scheme = URLComponents(string: upstream)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UsageError.invalidValue(option: "UPSTREAM_URL", value: upstream, expected: "an http or https URL")
        }
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        let name = cmd.value(Self.name) ?? "witness-\(key.keyID.description.lowercased())"
        do { try NoteKeyName.check(name) } catch {
            throw UsageError.invalidValue(option: "--name", value: name, expected: "a name without spaces or '+'")
        }
        var witness = LogWitness(upstream: upstream, state: try cmd.required(Self.state), key: key, name: name,
                                 logKey: try cmd.value(Self.trust).map { try PublicKey(contentsOf: $0) })
        witness.retry = RetryPolicy().scaled(by: context.environment.retryScale)
        let done = try await witness.run()
        if console.json {
            console.emit(Result(origin: done.checkpoint.origin, treeSize: done.checkpoint.size, previousSize: done.previousSize,
                                checkpoint: witness.checkpointPath, witnessKey: done.verifierKey))
        } else {
            let was = done.previousSize.map { $0 == done.checkpoint.size ? " (unchanged)" : " (was \($0))" } ?? " (first checkpoint)"
            console.info("cosigned \(TerminalText.sanitizeLine(done.checkpoint.origin)) at tree size \(done.checkpoint.size)\(was): \(witness.checkpointPath)")
            console.info("witness key: \(done.verifierKey)")
            console.info("next: the publisher runs corpusd cosign PUBLIC_DIR \(witness.checkpointPath)")
        }
        return 0
    }

    /// `{"origin", "tree_size", "previous_size", "checkpoint", "witness_key"}`
    struct Result: Encodable {
        let origin: String
        let treeSize: UInt64
        let previousSize: UInt64?
        let checkpoint: String
        let witnessKey: String

        enum CodingKeys: String, CodingKey {
            case origin, checkpoint
            case treeSize = "tree_size"
            case previousSize = "previous_size"
            case witnessKey = "witness_key"
        }
    }
}
