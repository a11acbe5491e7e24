import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// How the publisher's progress and warnings look on the command line.
enum PublisherReport {
    /// A skipped file as one line; the path is a file name from the source folder and may hold anything.
    static func line(_ s: SkippedFile) -> String {
        TerminalText.sanitizeLine("skipped \(s.path): \(s.reason)")
    }

    /// A text warning as one line (its text is already rendered safe).
    static func line(_ w: TextWarning) -> String {
        "warning: \(w.owner): \(w.field) holds terminal control characters, published as they are: \(w.rendered)"
    }
}

/// `{"path", "reason"}`: a file of the source folder that was not built, and why.
struct SkippedEntry: Encodable {
    let path: String
    let reason: String

    init(_ s: SkippedFile) {
        path = s.path
        reason = s.reason
    }
}

/// `{"owner", "field", "text"}`: a field holding terminal control characters, its text escaped.
struct WarningEntry: Encodable {
    let owner: String
    let field: String
    let text: String

    init(_ w: TextWarning) {
        owner = w.owner
        field = w.field
        text = w.rendered
    }
}

/// `{"code", "message"}`: what a publish says about the tree's keys (`KeyNotice`).
struct NoticeEntry: Encodable {
    let code: String
    let message: String

    init(_ n: KeyNotice) {
        code = n.code
        message = n.message
    }
}

/// `{"version", "expires", "catalog_version"}`: the timestamp a command signed.
struct TimestampSigned: Encodable {
    let version: Int
    let expires: String
    let catalogVersion: Int

    enum CodingKeys: String, CodingKey {
        case version, expires
        case catalogVersion = "catalog_version"
    }

    init(_ t: TimestampDocument) {
        version = t.version
        expires = t.expires
        catalogVersion = t.catalog.version
    }
}

/// One step of `corpusd build --json` as a JSON line on stderr.
struct BuildEventLine: Encodable {
    let step: BuildProgress

    init(_ step: BuildProgress) { self.step = step }

    enum CodingKeys: String, CodingKey { case event, documents, skipped, passages, size }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch step {
        case let .ingested(documents, skipped):
            try c.encode("ingested", forKey: .event)
            try c.encode(documents, forKey: .documents)
            try c.encode(skipped, forKey: .skipped)
        case let .split(passages):
            try c.encode("split", forKey: .event)
            try c.encode(passages, forKey: .passages)
        case .packed:
            try c.encode("packed", forKey: .event)
        case let .bundled(bytes):
            try c.encode("bundled", forKey: .event)
            try c.encode(bytes, forKey: .size)
        }
    }
}

/// One step of `corpusd publish --json` as a JSON line on stderr (docs/cli.md).
struct PublishEventLine: Encodable {
    let step: PublishProgress

    init(_ step: PublishProgress) { self.step = step }

    enum CodingKeys: String, CodingKey {
        case event, id, documents, passages, skipped, embedder, fallback, reason, digest, path, reused, owner, field, text, note
        case from, size, published
        case bundleSize = "bundle_size"
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch step {
        case let .building(id):
            try c.encode("building", forKey: .event)
            try c.encode(id, forKey: .id)
        case let .built(id, documents, passages, skipped):
            try c.encode("built", forKey: .event)
            try c.encode(id, forKey: .id)
            try c.encode(documents, forKey: .documents)
            try c.encode(passages, forKey: .passages)
            try c.encode(skipped.map(SkippedEntry.init), forKey: .skipped)
        case let .reused(id):
            try c.encode("reused", forKey: .event)
            try c.encode(id, forKey: .id)
        case let .embedderFallback(corpus, embedder, fallback, reason):
            try c.encode("embedder_fallback", forKey: .event)
            try c.encode(corpus, forKey: .id)
            try c.encode(embedder, forKey: .embedder)
            try c.encode(fallback, forKey: .fallback)
            try c.encode(reason, forKey: .reason)
        case let .embedderPublished(id, digest, path, reused):
            try c.encode("embedder", forKey: .event)
            try c.encode(id, forKey: .id)
            try c.encode(digest, forKey: .digest)
            try c.encode(path, forKey: .path)
            try c.encode(reused, forKey: .reused)
        case let .delta(id, from, bytes, bundleBytes, published, reused):
            try c.encode("delta", forKey: .event)
            try c.encode(id, forKey: .id)
            try c.encode(from, forKey: .from)
            try c.encode(bytes, forKey: .size)
            try c.encode(bundleBytes, forKey: .bundleSize)
            try c.encode(published, forKey: .published)
            try c.encode(reused, forKey: .reused)
        case let .textWarning(w):
            try c.encode("warning", forKey: .event)
            try c.encode(w.owner, forKey: .owner)
            try c.encode(w.field, forKey: .field)
            try c.encode(w.rendered, forKey: .text)
        case let .importNote(corpus, note):
            try c.encode("import_note", forKey: .event)
            try c.encode(corpus, forKey: .id)
            try c.encode(note, forKey: .note)
        }
    }
}
