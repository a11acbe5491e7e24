import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// How publisher errors and progress look on the command line.
enum PublisherReport {
    /// Runs `body`, turning a `PublisherError` into the refusal the user sees.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as PublisherError {
            throw report(e)
        }
    }

    static func report(_ e: PublisherError) -> ErrorReport {
        switch e {
        case .sourceNotFound:
            return ErrorReport(code: "not-found", message: e.description, hint: "check the path", exit: .notFound)
        case .noPassages:
            return ErrorReport(code: "empty", message: e.description, hint: "add .txt, .md, .html or .epub files with text", exit: .failure)
        case .invalidCatalogSource:
            return ErrorReport(code: "catalog-source", message: e.description, hint: "see docs/publishing.md for the catalog.json fields", exit: .usage)
        case let .keyNotCurrentRoot(_, current, _):
            return ErrorReport(code: "wrong-key", message: e.description,
                               hint: "sign with the key whose id is \(current) (after corpusd rotate-key, the new key)", exit: .verification)
        case .invalidTree:
            return ErrorReport(code: "damaged-tree", message: e.description, hint: "restore the published tree from a backup", exit: .verification)
        case .sameKey:
            return ErrorReport(code: "same-key", message: e.description, hint: "make a new key with corpusd keygen", exit: .usage)
        case .invalidPrebuiltBundle:
            return ErrorReport(code: "prebuilt-bundle", message: e.description, hint: "rebuild it with corpusd build and the publishing key", exit: .verification)
        case let .catalogIDChanged(_, published, catalog):
            return ErrorReport(code: "catalog-id-changed", message: e.description,
                               hint: "to start catalog \(catalog), publish it to a fresh --out folder and have clients add that with corpus remote add; to keep this tree, set \"id\" back to \(published)",
                               exit: .usage)
        case let .versionReused(corpus, version, _):
            return ErrorReport(code: "version-reused", message: e.description,
                               hint: "bump the version of \(corpus) in catalog.json: clients that installed version \(version) would never see the change", exit: .usage)
        case let .versionLowered(corpus, _, published, _):
            return ErrorReport(code: "version-lowered", message: e.description,
                               hint: "versions only go up: give \(corpus) a version above \(published) in catalog.json", exit: .usage)
        case .expiryOutOfRange:
            return ErrorReport(code: "usage", message: e.description, hint: "give --expires \(DurationOption.catalogExpiry.bounds)", exit: .usage)
        case .linkLeavesFolder:
            return ErrorReport(code: "link-outside", message: e.description, hint: "copy the file into the folder (cp -L) instead of linking to it", exit: .usage)
        }
    }

    /// A skipped file as one line; the path is a file name from the source folder and may hold anything.
    static func line(_ s: SkippedFile) -> String {
        TerminalText.sanitizeLine("skipped \(s.path): \(s.reason)")
    }

    /// A text warning as one line (its text is already rendered safe).
    static func line(_ w: TextWarning) -> String {
        "warning: \(w.owner): \(w.field) holds terminal control characters, published as they are: \(w.rendered)"
    }

    static func json(_ w: TextWarning) -> [String: Any] {
        ["owner": w.owner, "field": w.field, "text": w.rendered]
    }

    static func json(_ step: BuildProgress) -> [String: Any] {
        switch step {
        case let .ingested(documents, skipped): return ["event": "ingested", "documents": documents, "skipped": skipped]
        case let .split(passages): return ["event": "split", "passages": passages]
        case .packed: return ["event": "packed"]
        case let .bundled(bytes): return ["event": "bundled", "size": bytes]
        }
    }

    static func json(_ step: PublishProgress) -> [String: Any] {
        switch step {
        case let .building(id): return ["event": "building", "id": id]
        case let .built(id, documents, passages, skipped):
            return ["event": "built", "id": id, "documents": documents, "passages": passages,
                    "skipped": skipped.map { ["path": $0.path, "reason": $0.reason] }]
        case let .reused(id): return ["event": "reused", "id": id]
        case let .embedderFallback(corpus, embedder, fallback, reason):
            return ["event": "embedder_fallback", "id": corpus, "embedder": embedder, "fallback": fallback, "reason": reason]
        case let .embedderPublished(id, digest, path, reused):
            return ["event": "embedder", "id": id, "digest": digest, "path": path, "reused": reused]
        case let .textWarning(w):
            return json(w).merging(["event": "warning"]) { a, _ in a }
        }
    }
}
