import CorpusFormat

/// Everything that can stop a build or a publish.
///
/// Refusals to sign with the wrong key are their own case, so the CLI can say exactly which
/// key the tree expects. No case carries key material.
public enum PublisherError: Error, Equatable, Sendable {
    /// The source folder (or a catalog's source or bundle path) does not exist.
    case sourceNotFound(path: String)
    /// Ingesting found no text at all: an empty bundle is never written.
    case noPassages(source: String, skipped: Int)
    /// `CATALOG_DIR/catalog.json` is missing a field, names a corpus twice, or is not JSON.
    case invalidCatalogSource(path: String, reason: String)
    /// The signing key is not the current root key of the published tree.
    case keyNotCurrentRoot(given: String, current: String, rootVersion: Int)
    /// The published tree's own files (root keys, pointer, catalogs) are damaged.
    case invalidTree(path: String, reason: String)
    /// `rotate-key` was given the same key as new and current.
    case sameKey(keyID: String)
    /// A prebuilt bundle named by the catalog is not signed by the publishing key or is malformed.
    case invalidPrebuiltBundle(path: String, reason: String)
}

extension PublisherError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .sourceNotFound(path): return "\(path) does not exist or is not a folder"
        case let .noPassages(source, skipped):
            return "\(source) holds no readable text (\(skipped) file(s) skipped); refusing to write an empty bundle"
        case let .invalidCatalogSource(path, reason): return "\(path): \(reason)"
        case let .keyNotCurrentRoot(given, current, version):
            return "key \(given) is not the tree's current root key \(current) (root version \(version))"
        case let .invalidTree(path, reason): return "published tree file \(path) is damaged: \(reason)"
        case let .sameKey(keyID): return "the new key \(keyID) is the current key"
        case let .invalidPrebuiltBundle(path, reason): return "prebuilt bundle \(path): \(reason)"
        }
    }
}
