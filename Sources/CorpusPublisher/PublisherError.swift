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
    /// The signing key is not one of `role`'s keys in the tree's newest root document (format 2).
    case keyNotInRole(given: String, role: RootRole, allowed: [String], rootVersion: Int)
    /// `root publish`: the root keys that must sign root `version` have not all signed yet
    /// (`shortfalls`: root N's threshold, the draft's own, or both).
    case rootThresholdNotMet(version: Int, shortfalls: [RootShortfall])
    /// A root draft is not the tree's next root version.
    case rootVersionMismatch(draft: Int, expected: Int)
    /// A root draft's options or file cannot make a root document (`reason` says which field).
    case invalidRootDraft(path: String, reason: String)
    /// A root draft whose expiry has passed: clients would refuse it at once.
    case rootDraftExpired(version: Int, expires: String)
    /// `rotate-key` on a tree whose root has roles (format 2): that takes a ceremony.
    case rotationNeedsCeremony(rootVersion: Int)
    /// `corpusd timestamp` on a tree with no catalog to vouch for.
    case nothingToTimestamp(tree: String, reason: String)
    /// The pointer's catalog is signed by a key that the newest root no longer lists for catalogs.
    case catalogSignerRevoked(catalogVersion: Int, keyID: String, rootVersion: Int)
    /// A duration outside the bounds of what it sets (`what`: "timestamp lifetime", "root lifetime").
    case lifetimeOutOfRange(what: String, seconds: TimeInterval, range: ClosedRange<TimeInterval>)
    /// A file the command would create exists already.
    case fileExists(path: String)
    /// `--key-store` names a folder inside the published tree, which is uploaded and mirrored.
    case keyStoreInsideTree(store: String, tree: String)
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
        case let .keyNotInRole(given, role, allowed, version):
            return "key \(given) is not a \(role.rawValue) key of root \(version) (its \(role.rawValue) keys: \(allowed.joined(separator: ", ")))"
        case let .rootThresholdNotMet(version, shortfalls):
            return "root \(version) is not signed by enough root keys: " + shortfalls.map(\.description).joined(separator: "; ")
        case let .rootVersionMismatch(draft, expected):
            return "the draft is root \(draft), and the tree's next root is \(expected)"
        case let .invalidRootDraft(path, reason): return "root draft \(path): \(reason)"
        case let .rootDraftExpired(version, expires): return "root \(version) expired at \(expires)"
        case let .rotationNeedsCeremony(version):
            return "root \(version) of this tree has roles and thresholds; rotate-key changes only single-key trees"
        case let .nothingToTimestamp(tree, reason): return "\(tree) has no catalog to timestamp: \(reason)"
        case let .catalogSignerRevoked(catalogVersion, keyID, rootVersion):
            return "catalog \(catalogVersion) is signed by key \(keyID), which is not a catalog key of root \(rootVersion)"
        case let .lifetimeOutOfRange(what, seconds, range):
            return "a \(what) of \(Int(seconds)) s is outside \(Int(range.lowerBound)) s to \(Int(range.upperBound)) s"
        case let .fileExists(path): return "\(path) already exists; refusing to overwrite it"
        case let .keyStoreInsideTree(store, tree): return "the key store \(store) is inside the published tree \(tree), which is uploaded and mirrored"
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

/// One threshold of root keys a root draft does not meet yet: root `keysOf`'s root keys, `signed`
/// of which signed, `threshold` needed; `missing` names the keys that have not signed.
public struct RootShortfall: Equatable, Sendable, CustomStringConvertible {
    public let keysOf: Int
    public let signed: Int
    public let threshold: Int
    public let missing: [String]

    public init(keysOf: Int, signed: Int, threshold: Int, missing: [String]) {
        self.keysOf = keysOf
        self.signed = signed
        self.threshold = threshold
        self.missing = missing
    }

    public var description: String {
        "\(signed) of root \(keysOf)'s root keys signed, \(threshold) needed (not yet signed by \(missing.joined(separator: ", ")))"
    }
}
