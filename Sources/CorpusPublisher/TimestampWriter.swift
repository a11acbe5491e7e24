import Foundation
import CorpusFormat

/// Writes `timestamp.json` and its signature (docs/format.md "Timestamp"): the one piece of code
/// both `corpusd publish` (after the catalog, before the pointer) and `corpusd timestamp` (from
/// cron, between publishes) sign the freshness document with.
///
/// Each signing takes the version after the tree's last one, so a client never sees a timestamp
/// version go down, even when the same catalog is re-signed.
public enum TimestampWriter {
    /// Long enough to survive a missed cron run, short enough that a frozen server or mirror holds
    /// clients on old content for a day at most.
    public static let defaultExpiry: TimeInterval = 86400
    /// At least ten minutes (a cron run needs time to land), at most a week: past that the
    /// freshness document stops bounding a freeze any better than the catalog's own expiry.
    public static let expiryRange: ClosedRange<TimeInterval> = 600...(7 * 86400)

    /// The version of the tree's `timestamp.json`, 0 when it has none. A file that does not decode
    /// is damage the publisher must not write over blindly: the next version would be a guess.
    static func previousVersion(tree: String) throws -> Int {
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.timestamp)") else { return 0 }
        do {
            return try TimestampDocument.decode(data).version
        } catch {
            throw PublisherError.invalidTree(path: TreeLayout.timestamp, reason: "\(error)")
        }
    }

    /// Signs a timestamp for the catalog `catalog` (already written at its path: the flat
    /// catalog's, or the top document's for a version without one) with `key` and writes its
    /// signature, then `timestamp.json`, each atomically.
    static func write(catalog: CatalogPointer, version: Int, key: SecretKey, tree: String, now: Date,
                      expiresIn: TimeInterval) throws -> TimestampDocument {
        let path = catalog.path == TreeLayout.topPath(version: catalog.version) ? catalog.path : TreeLayout.catalogPath(version: catalog.version)
        let hashed = try SHA256.hash(fileAt: "\(tree)/\(path)")
        let doc = TimestampDocument(version: version, issued: now, expires: now.addingTimeInterval(expiresIn),
                                    catalog: .init(id: catalog.id, version: catalog.version, path: path,
                                                   digest: SHA256Digest(bytes: hashed.digest), size: hashed.size),
                                    top: try CatalogPartWriter.topRef(version: catalog.version, tree: tree))
        let bytes = try CanonicalJSON.encode(doc)
        let signature = try key.sign(bytes, trustedComment: doc.trustedComment,
                                     untrustedComment: "timestamp \(version) of catalog \(catalog.id) version \(catalog.version), key \(key.keyID)")
        // The signature first: a client reads the document, then the signature, and asks again
        // once when they do not match (docs/client.md), so this order closes the window.
        try FileIO.writeAtomically(Data(signature.fileText.utf8), to: "\(tree)/\(TreeLayout.timestamp)\(TreeLayout.signatureSuffix)")
        try FileIO.writeAtomically(bytes, to: "\(tree)/\(TreeLayout.timestamp)")
        return doc
    }

    /// `corpusd timestamp`: re-signs the freshness document for the catalog the pointer names,
    /// under the tree's lock. `key` must be a timestamp key of the newest root, and the catalog
    /// must be signed by a catalog key of it (a catalog signed by a revoked key gets no fresh
    /// promise: clients would refuse it anyway).
    public static func renew(tree: String, key: SecretKey, expiresIn: TimeInterval = defaultExpiry, now: Date = Date()) throws -> TimestampDocument {
        guard expiryRange.contains(expiresIn) else {
            throw PublisherError.lifetimeOutOfRange(what: "timestamp lifetime", seconds: expiresIn, range: expiryRange)
        }
        _ = try checkRenewal(tree: tree, key: key)
        let lock = try TreeLock.take(tree: tree)
        defer { lock.release() }
        // Again under the lock: a publish may have moved the pointer meanwhile.
        let pointer = try checkRenewal(tree: tree, key: key)
        let previous = try previousVersion(tree: tree)
        return try write(catalog: pointer, version: previous + 1, key: key, tree: tree, now: now, expiresIn: expiresIn)
    }

    /// Every refusal of `renew`, read-only (a refused run leaves the tree as it was): returns the
    /// pointer to the catalog to vouch for.
    static func checkRenewal(tree: String, key: SecretKey) throws -> CatalogPointer {
        guard let pointerData = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.pointer)") else {
            throw PublisherError.nothingToTimestamp(tree: tree, reason: "it has no \(TreeLayout.pointer); run corpusd publish first")
        }
        let chain = try RootKeyChain.load(tree: tree)
        guard let newest = chain.newest else {
            throw PublisherError.nothingToTimestamp(tree: tree, reason: "it has no \(TreeLayout.rootKeyPath(version: 1)); run corpusd publish first")
        }
        try chain.checkSigner(key, as: .timestamp)
        guard let pointer = try? JSONDecoder().decode(CatalogPointer.self, from: pointerData), pointer.version >= 1 else {
            throw PublisherError.invalidTree(path: TreeLayout.pointer, reason: "not a catalog pointer")
        }
        try checkCatalogSigner(pointer, tree: tree, root: newest)
        _ = try previousVersion(tree: tree)
        return pointer
    }

    /// Refuses to vouch for a catalog whose signature does not verify with a catalog key of `root`.
    static func checkCatalogSigner(_ pointer: CatalogPointer, tree: String, root: RootRoles) throws {
        let version = pointer.version
        let rel = pointer.path == TreeLayout.topPath(version: version) ? pointer.path : TreeLayout.catalogPath(version: version)
        let signature: Signature
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(rel)") else {
            throw PublisherError.invalidTree(path: rel, reason: "missing: the pointer names it")
        }
        do {
            signature = try Signature(contentsOf: "\(tree)/\(rel)\(TreeLayout.signatureSuffix)")
        } catch {
            throw PublisherError.invalidTree(path: rel, reason: "\(error)")
        }
        guard root.holds(signature.keyID, as: .catalog), let key = root.keys[signature.keyID] else {
            throw PublisherError.catalogSignerRevoked(catalogVersion: version, keyID: signature.keyID.description, rootVersion: root.version)
        }
        do {
            try key.verify(signature, message: data)
        } catch {
            throw PublisherError.invalidTree(path: rel, reason: "its signature does not verify (\(error))")
        }
    }
}
