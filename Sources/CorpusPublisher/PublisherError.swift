import Foundation
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
    /// The tree already serves another catalog: clients know a tree by its catalog id.
    case catalogIDChanged(tree: String, published: String, catalog: String)
    /// A corpus version the tree already published is given other content (`catalogVersion` listed it).
    case versionReused(corpus: String, version: String, catalogVersion: Int)
    /// A corpus version is lower than one the tree already published (`catalogVersion` listed it).
    case versionLowered(corpus: String, version: String, published: String, catalogVersion: Int)
    /// A file of a folder the catalog names (a model's) is a symbolic link leading outside it.
    case linkLeavesFolder(path: String, folder: String)
    /// A catalog lifetime outside `TreePublisher.expiryRange`.
    case expiryOutOfRange(seconds: TimeInterval, range: ClosedRange<TimeInterval>)
    /// An embedder id this build has no encoder for.
    case unknownEmbedder(id: String, known: [String])
    /// `--model` without a model embedder, or a model embedder without `--model`.
    case modelOption(reason: String)
    /// A model folder that is not the model its embedder id names (files missing, another
    /// configuration, weights that do not load).
    case invalidModel(folder: String, embedder: String, reason: String)
    /// Another app's corpus given to `--from` (or a catalog's `from`) with a field missing or
    /// malformed: `reason` names the file and the field.
    case importSource(path: String, format: ImportFormat, reason: String)
    /// Another app's archive holding an entry that could escape where it is read (zip slip, a
    /// link): refused whole, as a crafted archive.
    case unsafeImportSource(path: String, format: ImportFormat, reason: String)
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
        case let .catalogIDChanged(tree, published, catalog):
            return "\(tree) already holds catalog \(published), and catalog.json says \(catalog): a tree serves one catalog for good"
        case let .versionReused(corpus, version, catalogVersion):
            return "corpus \(corpus) version \(version) was already published with other content (catalog version \(catalogVersion)); a version names one content for good"
        case let .versionLowered(corpus, version, published, catalogVersion):
            let relation = CorpusVersion(version).flatMap { v in CorpusVersion(published).map { v < $0 } } ?? true
                ? "is lower than" : "is the same version, spelled differently, as"
            return "corpus \(corpus) version \(version) \(relation) version \(published), already published (catalog version \(catalogVersion))"
        case let .expiryOutOfRange(seconds, range):
            return "a catalog lifetime of \(Int(seconds)) s is outside \(Int(range.lowerBound)) s to \(Int(range.upperBound)) s"
        case let .unknownEmbedder(id, known):
            return "unknown embedder \(id.debugDescription): this build embeds with \(known.dropLast().joined(separator: ", ")) or \(known.last ?? "")"
        case let .modelOption(reason): return reason
        case let .invalidModel(folder, embedder, reason):
            return "\(folder) is not a model folder of \(embedder): \(reason)"
        case let .importSource(path, format, reason): return "\(format.sourceName) \(path): \(reason)"
        case let .unsafeImportSource(path, format, reason): return "\(format.sourceName) \(path) refused: \(reason)"
        case let .linkLeavesFolder(path, folder):
            return "\(path) is a symbolic link leading outside \(folder); the publisher reads only files inside the folders catalog.json names"
        }
    }
}
