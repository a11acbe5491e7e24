import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher
import CorpusObjectStore

/// `corpusd publish CATALOG_DIR --out PUBLIC_DIR --key KEY [--timestamp-key KEY] [--expires DURATION] [--key-store DIR --gate-url URL] [--to s3://… --endpoint URL [--private s3://…]]`
struct PublishCommand: ServerCommand {
    static let out = Option.path("--out", "PUBLIC_DIR", "the static tree to write (created if missing)").required()
    static let key = Option.path("--key", "KEY", "a catalog secret key of the tree's newest root (a single-key tree: its key)").required()
    static let timestampKey = Option.path("--timestamp-key", "KEY", "a timestamp secret key of the newest root, to sign timestamp.json too")
    static let expires = Option.duration("--expires", .catalogExpiry, "catalog lifetime, like 12h, 30d or 2w (default: 30d)")
    static let deltas = Option.integer("--deltas", "K", in: 0...16, "write deltas from each of the last K versions still referenced (default \(TreePublisher.defaultDeltaBases))")
    static let verbose = Option.flag("--verbose", "also list each unchanged corpus and each delta kept from before (by default the summary counts them)")
    static let keyStore = Option.path("--key-store", "DIR", "with --gate-url: encrypt entitled bundles and deltas once each, their file keys in DIR (outside PUBLIC_DIR, mode 600)")
    static let gateURL = Option.url("--gate-url", "with --key-store: the base URL of the gate that releases the keys (`corpusd serve --key-store DIR`), named in the signed catalog")
    static let spec = CommandSpec(["publish"], "build what changed in CATALOG_DIR/catalog.json and write a signed static tree to PUBLIC_DIR",
                                  positionals: .exactly("CATALOG_DIR").completing(.files), options: [out, key, timestampKey, expires, deltas, verbose, keyStore, gateURL] + ObjectStoreOptions.uploadOptions)

    let context: ServerContext

    func run() async throws -> Int32 {
        let expires = cmd.duration(Self.expires) ?? TreePublisher.defaultExpiry
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        let timestampKey = try cmd.value(Self.timestampKey).map { try SecretKey(contentsOf: $0) }
        let out = try cmd.required(Self.out)
        let bases = cmd.int(Self.deltas) ?? TreePublisher.defaultDeltaBases
        let env = context.environment
        let verbose = cmd.has(Self.verbose)
        // Every mistake in the object-storage options is refused before anything is built.
        let target = try ObjectStoreOptions.uploadTarget(cmd, environment: env.values)
        let encryption = try Self.encryption(cmd)
        let summary = try TreePublisher.publish(catalogDirectory: cmd.positionals[0], output: out, key: key, timestampKey: timestampKey, expiresIn: expires,
                                                deltaBases: bases, encryption: encryption) { step in
            Self.draw(step, console, verbose: verbose)
        }
        let c = summary.catalog
        // The local tree is complete first: it is what the bucket is made to match.
        var upload: TreeUploadSummary?
        if let target { upload = try await target.upload(tree: out, console: console, retryScale: env.retryScale) }
        if console.json {
            console.emit(Published(summary, upload: both(upload, target).map(UploadResult.init)))
        } else {
            if summary.createdRootKey { console.info("created root key 1 (\(key.keyID)): \(out)/keys/root-1.json, \(out)/keys/root.pub") }
            for r in summary.removed { console.info("removed unreferenced \(r)") }
            // Parts go a few at a time with every publish: one line for them, each with --verbose.
            if verbose { for r in summary.partsRemoved { console.info("removed unreferenced \(r)") } }
            if !summary.partsRemoved.isEmpty { console.info("removed \(summary.partsRemoved.count) catalog part(s) no retained top document names") }
            console.info("published catalog \(c.id) version \(c.version) (\(c.corpora.count) corpora, \(summary.built.count) built, \(summary.reused.count) unchanged), expires \(c.expires)")
            if verbose { console.info("read \(summary.hashed) file(s) to hash them; the others had not changed since they were last hashed") }
            if let t = summary.timestamp { console.info("signed \(TreeLayout.timestamp) version \(t.version), expires \(t.expires)") }
            for n in summary.notices { console.err("warning: \(n.message)") }
            if let upload, let target {
                console.info("uploaded to \(target.publicLocation): \(upload.uploaded.count) object(s) (\(ByteFormat.size(upload.uploadedBytes))), \(upload.present.count) already there, \(upload.deleted.count) deleted")
            }
        }
        return 0
    }

    /// One line per step on stderr (JSON lines with `--json`); warnings and notes even with `--quiet`.
    /// What did not change (a corpus reused, a delta kept) has a line only with `verbose`: a
    /// republish after one change prints what changed, and the summary counts the rest, however
    /// many corpora the catalog holds.
    static func draw(_ step: PublishProgress, _ console: Console, verbose: Bool) {
        if console.json {
            console.emitLine(PublishEventLine(step))
            return
        }
        switch step {
        case let .building(id): if !console.quiet { console.progress("building \(id)…\n") }
        case let .built(id, documents, passages, skipped):
            for s in skipped { console.err("\(id): \(PublisherReport.line(s))") }
            if !console.quiet { console.progress("built \(id): \(documents) document(s), \(passages) passage(s)\n") }
        case let .reused(id): if verbose && !console.quiet { console.progress("\(id) unchanged\n") }
        case let .embedderFallback(corpus, embedder, fallback, reason):
            console.err("note: \(corpus) asks for embedder \(embedder), built with \(fallback) instead: \(reason)")
        case let .embedderPublished(id, digest, path, reused):
            if !console.quiet { console.progress("embedder \(id) \(digest.prefix(12))… \(reused ? "unchanged" : "published"): \(path)\n") }
        case let .textWarning(w):
            console.err(PublisherReport.line(w))
        case let .delta(id, from, bytes, bundleBytes, published, reused):
            guard !console.quiet && (verbose || !reused) else { return }
            let share = String(format: "%.3f", Double(bytes) / Double(max(bundleBytes, 1)))
            let what = reused ? "unchanged" : published ? "published" : "not published (not smaller than half the bundle)"
            console.progress("delta \(id) \(from) → new: \(bytes) bytes, \(share) of the bundle, \(what)\n")
        case let .importNote(corpus, note):
            console.err(TerminalText.sanitizeLine("note: \(corpus): \(note)"))
        }
    }

    /// `{"catalog", "version", "expires", "root_version", "built", "reused", "removed", "warnings", "corpora", "timestamp", "notices", "upload"?}`
    struct Published: Encodable {
        struct Corpus: Encodable {
            struct Delta: Encodable {
                let fromVersion: String
                let path: String
                let size: Int64

                enum CodingKeys: String, CodingKey {
                    case path, size
                    case fromVersion = "from_version"
                }
            }

            let id: String
            let version: String
            let bundle: String
            let size: Int64
            let deltas: [Delta]
        }

        let catalog: String
        let version: Int
        let expires: String
        let rootVersion: Int
        let built: [String]
        let reused: [String]
        let removed: [String]
        let warnings: [WarningEntry]
        let corpora: [Corpus]
        /// null when this publish signed no timestamp (`notices` says why).
        let timestamp: TimestampSigned?
        let notices: [NoticeEntry]
        /// Source files and bundles read to be hashed (`PublishSummary.hashed`).
        let filesHashed: Int
        /// Only with `--to`.
        let upload: UploadResult?

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(catalog, forKey: .catalog)
            try c.encode(version, forKey: .version)
            try c.encode(expires, forKey: .expires)
            try c.encode(rootVersion, forKey: .rootVersion)
            try c.encode(built, forKey: .built)
            try c.encode(reused, forKey: .reused)
            try c.encode(removed, forKey: .removed)
            try c.encode(warnings, forKey: .warnings)
            try c.encode(corpora, forKey: .corpora)
            // Present as null: a script tells "not signed this time" from an older corpusd.
            try c.encode(timestamp, forKey: .timestamp)
            try c.encode(notices, forKey: .notices)
            try c.encode(filesHashed, forKey: .filesHashed)
            try c.encodeIfPresent(upload, forKey: .upload)
        }

        enum CodingKeys: String, CodingKey {
            case catalog, version, expires, built, reused, removed, warnings, corpora, timestamp, notices, upload
            case rootVersion = "root_version"
            case filesHashed = "files_hashed"
        }

        init(_ summary: PublishSummary, upload: UploadResult? = nil) {
            self.upload = upload
            filesHashed = summary.hashed
            let c = summary.catalog
            catalog = c.id
            version = c.version
            expires = c.expires
            rootVersion = c.rootVersion
            built = summary.built
            reused = summary.reused
            removed = summary.removed
            warnings = summary.warnings.map(WarningEntry.init)
            timestamp = summary.timestamp.map(TimestampSigned.init)
            notices = summary.notices.map(NoticeEntry.init)
            corpora = c.corpora.map { e in
                Corpus(id: e.id, version: e.version.description, bundle: e.bundle.path, size: e.bundle.size,
                       deltas: (e.deltas ?? []).map { .init(fromVersion: $0.fromVersion.description, path: $0.path, size: $0.size) })
            }
        }
    }
}

extension PublishCommand {
    /// `--key-store` and `--gate-url` go together: keys with no gate to release them, or a gate
    /// with no keys, would publish corpora nobody can open.
    static func encryption(_ cmd: ParsedCommand) throws -> PayloadEncryption? {
        switch (cmd.value(keyStore), cmd.value(gateURL)) {
        case (nil, nil): return nil
        case let (store?, gate?):
            do { try EncryptedPayload.checkGate(gate) } catch {
                throw UsageError.invalidValue(option: gateURL.name, value: gate, expected: "an http(s) base URL without credentials, query or fragment")
            }
            return PayloadEncryption(keyStore: store, gateURL: gate)
        case (_?, nil): throw UsageError.missingRequired(gateURL.name, command: "publish --key-store")
        case (nil, _?): throw UsageError.missingRequired(keyStore.name, command: "publish --gate-url")
        }
    }
}
