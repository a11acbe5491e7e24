import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// A refused `corpusd build`, `publish`, `rotate-key`, `timestamp` or `root …` as the publisher sees it.
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
        case let .keyNotInRole(_, role, allowed, version):
            return ErrorReport(code: "key-not-in-role", message: e.description,
                               hint: "sign with one of the \(role.rawValue) keys of root \(version) (\(allowed.joined(separator: ", "))), or change the roles with corpusd root draft",
                               kind: .verification)
        case let .rootThresholdNotMet(version, _):
            return ErrorReport(code: "root-threshold", message: e.description,
                               hint: "have the holders of the missing keys run corpusd root sign on the draft of root \(version), then run corpusd root publish again",
                               kind: .verification)
        case let .rootVersionMismatch(_, expected):
            return ErrorReport(code: "root-version", message: e.description,
                               hint: "make the draft again with corpusd root draft --from PUBLIC_DIR (it will be root \(expected)) and have it signed", kind: .usage)
        case .invalidRootDraft:
            return ErrorReport(code: "root-draft", message: e.description, hint: "see corpusd root draft --help and docs/operations.md", kind: .usage)
        case .rootDraftExpired:
            return ErrorReport(code: "root-expired", message: e.description,
                               hint: "make a new draft with a later --expires and have it signed again", kind: .usage)
        case .rotationNeedsCeremony:
            return ErrorReport(code: "needs-ceremony", message: e.description,
                               hint: "change keys with corpusd root draft, corpusd root sign by the root holders, then corpusd root publish (docs/operations.md)",
                               kind: .usage)
        case .nothingToTimestamp:
            return ErrorReport(code: "no-catalog", message: e.description, hint: "publish a catalog with corpusd publish first", kind: .usage)
        case let .catalogSignerRevoked(_, _, version):
            return ErrorReport(code: "catalog-key-revoked", message: e.description,
                               hint: "publish a new catalog with a catalog key of root \(version) (corpusd publish --key), which signs the timestamp too",
                               kind: .usage)
        case let .lifetimeOutOfRange(what, _, range):
            return ErrorReport(code: "usage", message: e.description,
                               hint: "give a \(what) from \(DurationOption.format(range.lowerBound)) to \(DurationOption.format(range.upperBound))", kind: .usage)
        case .keyStoreInsideTree:
            return ErrorReport(code: "key-store-inside-tree", message: e.description,
                               hint: "keep the key store outside PUBLIC_DIR, for example beside the publishing key; nothing was written", kind: .usage)
        case .fileExists:
            return ErrorReport(code: "exists", message: e.description, hint: "choose another file name, or remove it first", kind: .localIO)
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
