import Foundation
import CorpusFormat
import CorpusEngine

/// Real signed bundles made by hand for a `StaticTreeFixture`: a `PackFixture` pack and vectors,
/// zipped and signed by `BundleWriter`, and the catalog entry that offers them. Tests use it to
/// put exactly the bytes they need in front of the real client (text with control sequences, a
/// pack with corrupt pages, a bundle signed by another key), which `corpusd publish` would not make.
public struct SignedBundle: Sendable {
    public let path: String
    public let manifest: Manifest
}

extension StaticTreeFixture {
    /// Writes `pack` into a new folder under `work`, optionally damages its pack file, and signs the
    /// bundle with `key` (default: the newest root key).
    public func signedBundle(_ pack: PackFixture, work: TempDirectory, key: SecretKey? = nil,
                             tamperPack: ((String) throws -> Void)? = nil) throws -> SignedBundle {
        let folder = work.url("\(pack.id)-\(pack.version)-\(UInt32.random(in: 0...UInt32.max))")
        try pack.write(to: folder)
        try tamperPack?("\(folder)/\(BundleLayout.pack)")
        let unsigned = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(BundleLayout.manifest)")))
        let out = "\(folder).corpus.zip"
        let manifest = try BundleWriter.write(manifest: unsigned, packPath: "\(folder)/\(BundleLayout.pack)",
                                              vectorsPath: "\(folder)/\(BundleLayout.vectors)", key: key ?? rootKeys.last!, to: out)
        return SignedBundle(path: out, manifest: manifest)
    }

    /// The catalog entry offering `bundle`, stored in the tree under its content hash. `claimID` and
    /// `claimVersion` make the catalog say something else than the bundle, to stage a mismatch.
    public func catalogEntry(for bundle: SignedBundle, title: String? = nil, description: String? = nil, access: Access = .free,
                             tier: String? = nil, bundled: Bool = false, claimID: String? = nil, claimVersion: String? = nil) throws -> CatalogEntry {
        let ref = try addBundle(try Data(contentsOf: URL(fileURLWithPath: bundle.path)))
        let m = bundle.manifest
        return CatalogEntry(id: claimID ?? m.id, version: claimVersion.flatMap(CorpusVersion.init) ?? m.version, title: title ?? m.title,
                            description: description ?? "test corpus \(m.id)", language: "en", license: "CC0-1.0", access: access, tier: tier,
                            bundled: bundled, bundle: ref, documents: m.documents, passages: m.passages, embedder: m.embedder,
                            content: m.content)
    }
}

/// Damages a pack so that it still opens and reads (every query the engine makes at open time
/// succeeds) but `PRAGMA quick_check` fails: the fragmented-bytes count in the header of the
/// `documents` table's root page is made wrong ("Fragmentation of 0 bytes reported as 13").
public func corruptPackPages(_ packPath: String) throws {
    guard let root = try Database(path: packPath, mode: .readOnly).scalarInt("SELECT rootpage FROM sqlite_schema WHERE name = 'documents'") else {
        throw CocoaError(.fileReadCorruptFile)
    }
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: packPath))
    defer { try? handle.close() }
    let header = try handle.readToEnd() ?? Data()
    let pageSize = Int(header[16]) << 8 | Int(header[17])
    let fragmentedBytes = (Int(root) - 1) * pageSize + (root == 1 ? 100 : 0) + 7
    try handle.seek(toOffset: UInt64(fragmentedBytes))
    try handle.write(contentsOf: Data([header[fragmentedBytes] &+ 13]))
}

/// Flips one byte of a file in place (at `offset`, default the middle), as a failing disk would.
public func flipByte(_ path: String, at offset: UInt64? = nil) throws {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let size = try handle.seekToEnd()
    let at = offset ?? size / 2
    try handle.seek(toOffset: at)
    let byte = try handle.read(upToCount: 1) ?? Data([0])
    try handle.seek(toOffset: at)
    try handle.write(contentsOf: Data([byte[0] ^ 0xFF]))
}
