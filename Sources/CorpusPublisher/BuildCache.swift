import Foundation
import CorpusFormat

/// Remembers which inputs produced which bundle, so `publish` rebuilds only what changed.
///
/// Stored as `PUBLIC_DIR/.build-cache` (a dotfile: servers do not serve it), in binary
/// (`BuildCacheCodec`, format 3). An entry is reused only when its input digest matches and the
/// bundle file it names is intact. A cache of format 1 or 2 (`.build-cache.json`, the same
/// entries as JSON) is still read when no `.build-cache` exists; the next save replaces it.
struct BuildCache {
    static let fileName = ".build-cache"
    /// Where formats 1 and 2 were kept.
    static let jsonFileName = ".build-cache.json"
    /// Bump when ingest, splitting or pack writing change what a build produces. v2: links leaving
    /// the source folder skipped, DOCTYPE internal subsets dropped, too-deep HTML skipped. A corpus
    /// whose content this changes needs a new version to be published again (TreeHistory).
    static let builderVersion = "corpus-build-v2"
    /// Bump when an importer changes what it makes of the same source (docs/import.md).
    static let importerVersion = "import-v1"

    struct Entry: Codable, Equatable, Sendable {
        var inputs: String
        var bundle: BundleRef
        var manifest: CachedManifest
        /// An imported reader-app corpus's own "bundled" mark (the catalog entry's `bundled` wins).
        var sourceBundled: Bool?
        /// The deltas listed for this bundle (absent in caches written before deltas existed).
        var deltas: [CachedDelta]?
        /// The source's files (by path; a single-file source or a prebuilt bundle as "") with the
        /// digest and stamp each had when last hashed (`FileStamp`).
        var sources: [String: StampedDigest]?
        /// The bundle's stamp when it last hashed right.
        var bundleStamp: FileStamp?
    }

    /// A delta in the tree, with the bundles it joins: reused while both are the same.
    struct CachedDelta: Codable, Equatable, Sendable {
        var ref: DeltaRef
        var base: SHA256Digest
        var target: SHA256Digest
    }

    var corpora: [String: Entry] = [:]

    /// The entries as JSON, the cache's formats 1 and 2 (2 wrote a corpus to a line).
    private struct JSONFile: Decodable {
        var format: Int
        var corpora: [String: Entry]
    }

    static func load(tree: String) -> BuildCache {
        // A missing or unreadable cache only costs a rebuild.
        if let data = FileManager.default.contents(atPath: "\(tree)/\(fileName)") {
            return BuildCache(corpora: BuildCacheCodec.decode(data) ?? [:])
        }
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(jsonFileName)"),
              let json = try? JSONDecoder().decode(JSONFile.self, from: data), json.format == 1 || json.format == 2 else { return BuildCache() }
        return BuildCache(corpora: json.corpora)
    }

    func save(tree: String) throws {
        try FileIO.writeAtomically(BuildCacheCodec.encode(corpora), to: "\(tree)/\(Self.fileName)")
        FileIO.remove("\(tree)/\(Self.jsonFileName)")
    }

    /// The digest of everything a build's output depends on: the builder version, the corpus's
    /// fields, the embedder, the signing key, and every file of the source folder (path and content,
    /// read as the build reads them: through `SourceFolder`, so never through a link leaving it).
    /// An import (`from`) adds its format (only then, so the digests of other corpora stay what
    /// they were), and a zip file source its SHA-256. `hasher` reuses the digest of a file whose
    /// stamp is unchanged.
    static func inputs(of entry: CatalogSource.Entry, source: String, embedderID: String, keyID: KeyID,
                       hasher: inout StampedHasher) throws -> String {
        let d = Digest(.sha256)
        func field(_ s: String) {
            d.update(Array(s.utf8))
            d.update([UInt8(0)])
        }
        for f in [builderVersion, entry.id, entry.version.description, entry.title ?? "", entry.description ?? "",
                  entry.language ?? "", entry.license ?? "", embedderID, keyID.description] { field(f) }
        // A pack without its index is named in the inputs (as it was when it was not the default),
        // a pack with it is not: caches of `bundle` builds, the default before, still match, and a
        // bundle built with its index then is rebuilt for an entry that now gets the default. An
        // import keeps its index whatever the entry says.
        if entry.importFormat == nil, entry.index != "bundle" { field("index:install") }
        if let format = entry.importFormat {
            field("from:\(format.rawValue):\(importerVersion)")
            if !format.sourceIsFolder {
                field(try hasher.digest(of: FileHandleReader(path: source), key: "").hex)
                return Hex.encode(d.finalize())
            }
        }
        let folder = try SourceFolder(source)
        for file in try folder.list().files {
            field(file.path)
            // A file the build cannot read is skipped by it; its reason stands in for the content.
            let reader: FileHandleReader
            do { reader = try folder.open(file).reader } catch { field("unreadable: \(error.reason)"); continue }
            field(try hasher.digest(of: reader, key: file.path).hex)
        }
        return Hex.encode(d.finalize())
    }

    /// A prebuilt bundle is reused while its bytes, the id and version it must carry, and the key are unchanged.
    static func inputs(ofPrebuilt entry: CatalogSource.Entry, sha256: String, keyID: KeyID) -> String {
        SHA256.hex(Array("prebuilt\0\(entry.id)\0\(entry.version)\0\(sha256)\0\(keyID)".utf8))
    }
}
