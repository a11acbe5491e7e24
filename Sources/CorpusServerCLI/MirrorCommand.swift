import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync
import CorpusMirror

/// `corpusd mirror UPSTREAM_URL --out DIR --trust PUB [--token TOKEN]`
enum MirrorCommand {
    static let spec = CommandSpec(
        ["mirror"], "UPSTREAM_URL --out DIR --trust PUB [--token TOKEN]",
        "copy a published tree into DIR, verified against PUB, ready for corpusd serve or nginx; run again to update",
        positionals: 1...1,
        options: [.value("--out", "the mirror's folder (created if missing)"),
                  .value("--trust", "the upstream's root public key (minisign .pub file)"),
                  .value("--token", "entitlement token, sent to the upstream only, to mirror entitled corpora too (or CORPUS_TOKEN)")],
        required: ["--out", "--trust"])

    static func run(_ cmd: ParsedCommand, _ console: Console) async throws {
        let env = CommandEnvironment(ProcessInfo.processInfo.environment)
        let upstream = cmd.positionals[0]
        guard let scheme = URLComponents(string: upstream)?.scheme?.lowercased(), scheme == "http" || scheme == "https",
              URLComponents(string: upstream)?.host?.isEmpty == false else {
            throw UsageError.invalidValue(option: "UPSTREAM_URL", value: upstream, expected: "an http or https URL")
        }
        let key = try PublicKey(contentsOf: cmd.value("--trust")!)
        let token = cmd.value("--token") ?? env.token
        let out = cmd.value("--out")!
        let updater = MirrorUpdater(upstream: upstream, directory: out, trustedKey: key, token: token,
                                    retry: RetryPolicy().scaled(by: env.retryScale))
        let drawer = MirrorProgressLines(console: console)
        let s = try await updater.run(progress: drawer.handle)
        let c = s.catalog
        if console.json {
            console.emit(["catalog": c.id, "version": c.version, "previous_version": s.previousVersion as Any? ?? NSNull(),
                          "expires": c.expires, "fetched": s.fetched, "fetched_bytes": s.fetchedBytes, "present": s.present,
                          "skipped_entitled": s.skippedEntitled, "removed": s.removed])
            return
        }
        let was = s.previousVersion.map { $0 == c.version ? " (unchanged)" : " (was version \($0))" } ?? " (new mirror)"
        console.info("mirrored catalog \(c.id) version \(c.version)\(was) into \(out), expires \(c.expires)")
        console.info("bundles: \(s.fetched.count) fetched (\(ByteFormat.size(s.fetchedBytes))), \(s.present.count) already present, \(s.removed.count) removed")
        if !s.skippedEntitled.isEmpty {
            console.info("skipped \(s.skippedEntitled.count) entitled corpora without a token: \(s.skippedEntitled.joined(separator: ", ")) (pass --token to mirror them)")
        }
    }
}

/// One line per step on stderr (JSON lines with `--json`, nothing with `--quiet`); download
/// progress only at its end, so logs of cron runs stay short.
private final class MirrorProgressLines: Sendable {
    let console: Console

    init(console: Console) { self.console = console }

    var handle: @Sendable (MirrorProgress) -> Void { { [self] in self.draw($0) } }

    private func draw(_ event: MirrorProgress) {
        if console.json {
            switch event {
            case let .catalogVerified(id, version, previous):
                console.emitLine(["event": "catalog", "catalog": id, "version": version, "previous_version": previous as Any? ?? NSNull()])
            case let .skippedEntitled(corpus): console.emitLine(["event": "skipped", "corpus": corpus, "reason": "entitled"])
            case let .present(corpus, path): console.emitLine(["event": "present", "corpus": corpus, "bundle": path])
            case .downloading: break
            case let .downloaded(corpus, path, bytes): console.emitLine(["event": "downloaded", "corpus": corpus, "bundle": path, "bytes": bytes])
            case let .removed(path): console.emitLine(["event": "removed", "bundle": path])
            }
            return
        }
        guard !console.quiet else { return }
        switch event {
        case let .catalogVerified(id, version, _): console.progress("verified catalog \(id) version \(version)\n")
        case let .skippedEntitled(corpus): console.progress("skipping \(corpus): entitled, and no --token given\n")
        case .present, .downloading: break
        case let .downloaded(corpus, _, bytes): console.progress("fetched \(corpus) (\(ByteFormat.size(bytes)))\n")
        case let .removed(path): console.progress("removed unreferenced \(path)\n")
        }
    }
}
