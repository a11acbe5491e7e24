import CorpusFormat
import Foundation

/// Appends what a publish signs to the tree's transparency log (`log/`, docs/format.md
/// "Transparency log"): the root document versions the log does not hold yet, then the catalog
/// version, each as one `LogLeaf`; the checkpoint is signed by the publishing key (a catalog key of
/// the newest root, the one key of a single-key tree), the key clients verify it with.
///
/// Root versions are logged by the first catalog publish that follows them (`corpusd root publish`
/// holds no online key to sign a checkpoint with): a log not started yet gets every root version
/// of the tree, an existing one those newer than the root the previous catalog was signed under.
public enum TreeLogAppender {
    /// Called between writing the signed catalog and the freshness document and pointer, so a
    /// client that sees the new pointer finds its catalog's leaf in the log. (Also for a catalog
    /// signed by hand, which a publisher's log must hold like any other.)
    @discardableResult
    public static func append(tree: String, catalog: Catalog, catalogBytes: Data?, topBytes: Data? = nil, key: SecretKey) throws -> TransparencyLogWriter.Appended {
        let origin = TreeLog.origin(catalogID: catalog.id)
        // After a key rotation the last checkpoint is the previous key's: every catalog key the
        // tree's root chain ever listed may have signed it.
        let earlier = try Set(RootKeyChain.load(tree: tree).roots.flatMap { $0.keys(for: .catalog) }).filter { $0 != key.publicKey }
            .map { try $0.noteVerifier(keyName: origin) as any NoteVerifier }
        let writer = try TransparencyLogWriter(folder: "\(tree)/\(TreeLog.folder)", origin: origin, signer: key.noteSigner(keyName: origin),
                                               earlier: earlier)
        let started = try writer.checkpoint() != nil
        var firstRoot = 1
        // The previous version's root, from its top document when it has one (a few hundred bytes
        // where a flat catalog of 100,000 entries is 69 MB), else from its flat catalog.
        if started, let earlier = [TreeLayout.topPath(version: catalog.version - 1), TreeLayout.catalogPath(version: catalog.version - 1)].lazy
            .compactMap({ FileManager.default.contents(atPath: "\(tree)/\($0)") }).compactMap({ try? Catalog.decode($0) }).first {
            firstRoot = earlier.rootVersion + 1
        }
        var leaves: [[UInt8]] = []
        for version in stride(from: firstRoot, through: catalog.rootVersion, by: 1) {
            guard let json = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.rootKeyPath(version: version))") else { continue }
            leaves.append(try LogLeaf(catalogID: catalog.id, rootVersion: version, documentBytes: [UInt8](json)).bytes)
        }
        // A version without a flat catalog (`Catalog.maxFlatBytes`) is logged by its top document alone.
        if let catalogBytes { leaves.append(try LogLeaf(catalogID: catalog.id, version: catalog.version, documentBytes: [UInt8](catalogBytes)).bytes) }
        if let topBytes { leaves.append(try LogLeaf(catalogID: catalog.id, version: catalog.version, topDocumentBytes: [UInt8](topBytes)).bytes) }
        return try writer.append(leaves)
    }
}
