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
            if let line = MirrorEventLine(event) { console.emitLine(line) }
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

/// One step of `corpusd mirror --json` as a JSON line on stderr (docs/cli.md).
struct MirrorEventLine: Encodable {
    let step: MirrorProgress

    /// Nil for download progress: a download is reported at its end (`downloaded`), as in text mode.
    init?(_ step: MirrorProgress) {
        if case .downloading = step { return nil }
        self.step = step
    }

    enum CodingKeys: String, CodingKey {
        case event, catalog, version, corpus, reason, bundle, bytes
        case previousVersion = "previous_version"
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch step {
        case let .catalogVerified(id, version, previous):
            try c.encode("catalog", forKey: .event)
            try c.encode(id, forKey: .catalog)
            try c.encode(version, forKey: .version)
            try c.encode(Nullable(previous), forKey: .previousVersion)
        case let .skippedEntitled(corpus):
            try c.encode("skipped", forKey: .event)
            try c.encode(corpus, forKey: .corpus)
            try c.encode("entitled", forKey: .reason)
        case let .present(corpus, path):
            try c.encode("present", forKey: .event)
            try c.encode(corpus, forKey: .corpus)
            try c.encode(path, forKey: .bundle)
        case .downloading:
            return  // never made (see init)
        case let .downloaded(corpus, path, bytes):
            try c.encode("downloaded", forKey: .event)
            try c.encode(corpus, forKey: .corpus)
            try c.encode(path, forKey: .bundle)
            try c.encode(bytes, forKey: .bytes)
        case let .removed(path):
            try c.encode("removed", forKey: .event)
            try c.encode(path, forKey: .bundle)
        }
    }
}
