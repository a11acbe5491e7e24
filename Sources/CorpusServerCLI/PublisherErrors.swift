import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// A refused `corpusd build`, `publish` or `rotate-key` as the publisher sees it.
enum PublisherErrors {
    static func report(_ e: PublisherError) -> ErrorReport {
        switch e {
        case .sourceNotFound:
            return ErrorReport(code: "not-found", message: e.description, hint: "check the path", kind: .notFound)
        case .noPassages:
            return ErrorReport(code: "empty", message: e.description, hint: "add .txt, .md, .html or .epub files with text", kind: .failure)
        case .invalidCatalogSource:
            return ErrorReport(code: "catalog-source", message: e.description, hint: "see docs/publishing.md for the catalog.json fields", kind: .usage)
        case let .keyNotCurrentRoot(_, current, _):
            return ErrorReport(code: "wrong-key", message: e.description,
                               hint: "sign with the key whose id is \(current) (after corpusd rotate-key, the new key)", kind: .verification)
        case .invalidTree:
            return ErrorReport(code: "damaged-tree", message: e.description, hint: "restore the published tree from a backup", kind: .verification)
        case .sameKey:
            return ErrorReport(code: "same-key", message: e.description, hint: "make a new key with corpusd keygen", kind: .usage)
        case .invalidPrebuiltBundle:
            return ErrorReport(code: "prebuilt-bundle", message: e.description, hint: "rebuild it with corpusd build and the publishing key", kind: .verification)
        case let .catalogIDChanged(_, published, catalog):
            return ErrorReport(code: "catalog-id-changed", message: e.description,
                               hint: "to start catalog \(catalog), publish it to a fresh --out folder and have clients add that with corpus remote add; to keep this tree, set \"id\" back to \(published)",
                               kind: .usage)
        case let .versionReused(corpus, version, _):
            return ErrorReport(code: "version-reused", message: e.description,
                               hint: "bump the version of \(corpus) in catalog.json: clients that installed version \(version) would never see the change", kind: .usage)
        case let .versionLowered(corpus, _, published, _):
            return ErrorReport(code: "version-lowered", message: e.description,
                               hint: "versions only go up: give \(corpus) a version above \(published) in catalog.json", kind: .usage)
        case .expiryOutOfRange:
            return ErrorReport(code: "usage", message: e.description, hint: "give --expires \(DurationOption.catalogExpiry.bounds)", kind: .usage)
        case .unknownEmbedder:
            return ErrorReport(code: "unknown-embedder", message: e.description,
                               hint: "leave --embedder out for the model-free default, or give a model's id (all-MiniLM-L6-v2, bge-small-en-v1.5, …) with --model DIR", kind: .usage)
        case .modelOption:
            return ErrorReport(code: "usage", message: e.description, hint: "see corpusd build --help", kind: .usage)
        case .invalidModel:
            return ErrorReport(code: "model-folder", message: e.description,
                               hint: "give the model's sentence-transformers folder (scripts/fetch-model.sh fills models/all-MiniLM-L6-v2)", kind: .usage)
        case let .importSource(_, format, _):
            return ErrorReport(code: "import-source", message: e.description,
                               hint: "export it again from the \(format.appName); docs/import.md lists what --from \(format.rawValue) accepts", kind: .usage)
        case .unsafeImportSource:
            return ErrorReport(code: "unsafe-input", message: e.description, hint: "the archive is crafted or damaged; do not use it", kind: .verification)
        case .linkLeavesFolder:
            return ErrorReport(code: "link-outside", message: e.description, hint: "copy the file into the folder (cp -L) instead of linking to it", kind: .usage)
        }
    }
}
