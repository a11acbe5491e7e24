import Foundation
import CorpusCLIKit
import CorpusMirror

/// One line per step on stderr (JSON lines with `--json`, nothing with `--quiet`); download
/// progress only at its end, so logs of cron runs stay short.
final class MirrorProgressLines: Sendable {
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
