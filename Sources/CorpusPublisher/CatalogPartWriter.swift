import CorpusFormat
import Foundation

/// Writes a catalog version's trie of parts and its signed top document (docs/format.md "Catalog
/// parts"): the parts the tree does not hold yet, then `catalogs/<N>.top.json` and its signature.
///
/// Parts are named by their stored bytes, so a part whose entries did not change keeps its name
/// and is not written again: republishing after one corpus changed writes the leaf that holds it
/// and the nodes above it, `depth + 1` parts, whatever the catalog's size, and the listing part
/// that holds it with the listing index (`ListingPartition`).
public enum CatalogPartWriter {
    public struct Written {
        /// The top document.
        public var top: Catalog
        /// Its canonical bytes: the one document signed for this catalog version for readers of
        /// parts (what a transparency log would record beside the flat catalog).
        public var signedBytes: Data
        /// Paths (relative to the tree) of the parts this call wrote.
        public var parts: [String]
        /// Parts named from the last version's record (`CatalogPartIndex`) without being built.
        public var reused: Int
        /// The entries' size as JSON, about the flat catalog's (`CatalogPartition.Built.entryBytes`).
        public var entryBytes: Int64
        /// The record just written: every part the top document names, by place
        /// (`CatalogPartRecordFile`), which the garbage collection that follows need not read back.
        public var record: CatalogPartRecordFile
        /// True when the buckets were compared with the previous version's entries by value
        /// (`previous` matched the record), false when every bucket was digested.
        public var comparedWithPrevious: Bool
        /// True when only the changed corpora's parts were looked at (`CatalogPartUpdate`): the
        /// garbage collection then looks only at the parts versions stopped naming
        /// (`PublishedTree.removeReplacedParts`).
        public var updated: Bool

        /// False when the flat catalog would be larger than any client reads (`Catalog.maxFlatBytes`):
        /// the version then has its top document only (docs/format.md "Compatibility").
        public var flatCatalogFits: Bool { entryBytes <= Catalog.maxFlatBytes }
    }

    /// `previous`: the entries of the version the tree's record describes, when the caller holds
    /// them (`corpusd publish` reads them for its history checks). Used only when they are of the
    /// record's very version and trie root; otherwise every bucket's entries are digested.
    public static func write(_ catalog: Catalog, key: SecretKey, tree: String, previous: CatalogPreviousEntries? = nil) throws -> Written {
        // The record of the last version's parts, when it checks out: buckets whose entries did not
        // change keep their parts without being encoded, compressed or hashed again.
        let file = CatalogPartRecordFile.load(tree: tree)
        if let file, let previous,
           let updated = try CatalogPartUpdate.update(catalog.corpora, version: catalog.version, record: file, previous: previous, readPart: { ref in
               guard ref.size <= CatalogPart.maxStoredBytes, let data = FileManager.default.contents(atPath: "\(tree)/\(ref.path)"),
                     Int64(data.count) == ref.size else { return nil }
               return data
           }) {
            let written = try writeParts(updated.stored, tree: tree)
            let (top, bytes) = try writeTop(catalog.topDocument(parts: updated.parts, listing: updated.listing), key: key, tree: tree)
            try updated.record.write(tree: tree)
            return Written(top: top, signedBytes: bytes, parts: written, reused: updated.reused, entryBytes: updated.entryBytes,
                           record: updated.record, comparedWithPrevious: true, updated: true)
        }
        let reuse = file?.index()
        let previous = previous.flatMap { p in reuse.flatMap { $0.version == p.version && $0.root == p.root ? p : nil } }
        let holds = { (ref: PartRef) in CatalogPartIndex.holds(ref, tree: tree) }
        let built = try CatalogPartition.build(catalog.corpora, reuse: reuse, previous: previous, holds: holds)
        // The listing `corpus catalog` browses: parts of the same kind of name, in the same folder,
        // so servers, mirrors and the object-store upload carry them as they carry the trie's.
        let listing = try ListingPartition.build(catalog.corpora, reuse: reuse?.listing ?? [], previous: previous, holds: holds)
        let written = try writeParts(built.stored.merging(listing.stored, uniquingKeysWith: { a, _ in a }), tree: tree)
        let (top, bytes) = try writeTop(catalog.topDocument(parts: built.parts, listing: listing.listing), key: key, tree: tree)
        // After the top document it describes: a record without its top is never used (`load`).
        let record = CatalogPartIndex.after(reuse, version: top.version, parts: built, listing: listing,
                                            order: CatalogPartIndex.OrderDigest.of(catalog.corpora),
                                            written: Set(written.map { String($0.dropFirst("parts/".count)) }))
        let recordFile = CatalogPartRecordFile(record)
        try recordFile.write(tree: tree)
        return Written(top: top, signedBytes: bytes, parts: written, reused: built.reused + listing.reused, entryBytes: built.entryBytes,
                       record: recordFile, comparedWithPrevious: previous != nil, updated: false)
    }

    /// The garbage collection after a publish (once the pointer names `keep`): the bundles,
    /// artifacts and deltas no unexpired catalog names, then the parts no retained top document
    /// names: after an update (`Written.updated`) among the parts the record lists as replaced
    /// only, else among every part in the tree. Returns the removed paths of each.
    public static func removeUnreferenced(after written: Written, keep: Catalog, tree: String, now: Date) -> (files: [String], parts: [String]) {
        let published = PublishedTree(root: tree)
        let files = published.removeUnreferencedFiles(keep: keep, now: now, current: written.record)
        if written.updated { return (files, published.removeReplacedParts(record: written.record, now: now)) }
        return (files, published.removeUnreferencedParts(current: keep.version, now: now, record: written.record))
    }

    /// Writes the parts the tree does not hold yet (sorted by name); returns their paths.
    private static func writeParts(_ stored: [PartRef: Data], tree: String) throws -> [String] {
        try FileIO.createDirectory("\(tree)/parts")
        var written: [String] = []
        for (ref, bytes) in stored.sorted(by: { $0.key.digest.hex < $1.key.digest.hex }) {
            let path = "\(tree)/\(ref.path)"
            if FileIO.fileSize(path) == ref.size { continue }
            try FileIO.writeAtomically(bytes, to: path)
            written.append(ref.path)
        }
        return written
    }

    /// Signs and writes the top document, signature first.
    private static func writeTop(_ top: Catalog, key: SecretKey, tree: String) throws -> (Catalog, Data) {
        let bytes = try top.canonicalBytes()
        let signature = try key.sign(bytes, trustedComment: top.trustedComment,
                                     untrustedComment: "top document of catalog \(top.id) version \(top.version), key \(key.keyID)")
        let path = "\(tree)/\(TreeLayout.topPath(version: top.version))"
        try FileIO.writeAtomically(Data(signature.fileText.utf8), to: path + TreeLayout.signatureSuffix)
        try FileIO.writeAtomically(bytes, to: path)
        return (top, bytes)
    }

    /// The reference a timestamp holds to catalog version `version`'s top document, nil when the
    /// tree has none (a tree published before parts existed).
    public static func topRef(version: Int, tree: String) throws -> TimestampDocument.TopRef? {
        let rel = TreeLayout.topPath(version: version)
        guard FileManager.default.fileExists(atPath: "\(tree)/\(rel)") else { return nil }
        let (digest, size) = try SHA256.digest(fileAt: "\(tree)/\(rel)")
        return .init(path: rel, digest: digest, size: size)
    }
}
