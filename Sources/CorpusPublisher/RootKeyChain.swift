import Foundation
import CorpusFormat

/// The root documents of a published tree (`keys/root-<N>.json` and their signatures), of either
/// format: single-key roots (format 1, one `.minisig` each) and roots with roles and thresholds
/// (format 2, one `.<KEYID>.minisig` per holder).
///
/// Loading verifies every link with `RootLink`, the rule clients apply, so a publisher never
/// extends or signs under a chain its clients would refuse.
public struct RootKeyChain: Sendable {
    /// Every root version, oldest first, each verified against the one before it.
    public let roots: [RootRoles]

    /// The newest root: the keys that may sign catalogs and timestamps now. nil for a new tree.
    public var newest: RootRoles? { roots.last }
    public var version: Int { roots.count }
    /// True while the tree has no root with roles: one key holds every role (or none exists yet).
    public var isSingleKey: Bool { (newest?.format ?? 1) == 1 }

    /// The trusted comment of a format-1 root document's signature.
    public static func trustedComment(for doc: RootKeyDocument) -> String { "root:\(doc.version) key:\(doc.keyID)" }

    public static let publicKeyPath = "keys/root.pub"

    /// Reads `keys/root-1.json`, `root-2.json`, … until one is missing, verifying each link.
    public static func load(tree: String) throws -> RootKeyChain {
        var roots: [RootRoles] = []
        while true {
            let rel = TreeLayout.rootKeyPath(version: roots.count + 1)
            guard let data = FileManager.default.contents(atPath: "\(tree)/\(rel)") else { break }
            let next: RootRoles
            do {
                next = try RootRoles.parse(data, what: rel)
            } catch {
                throw PublisherError.invalidTree(path: rel, reason: "\(error)")
            }
            let signatures = RootLink.signaturePaths(of: next, previous: roots.last).compactMap { FileManager.default.contents(atPath: "\(tree)/\($0)") }
            do {
                try RootLink.verify(next, json: data, signatures: signatures, previous: roots.last)
            } catch {
                throw PublisherError.invalidTree(path: rel, reason: "its signatures do not make it the next root: \(error)")
            }
            roots.append(next)
        }
        return RootKeyChain(roots: roots)
    }

    /// Refuses a key that may not sign as `role` under the newest root; for a new tree, any key
    /// (it becomes root 1, holding every role). A single-key tree names its one key, as before roles.
    public func checkSigner(_ key: SecretKey, as role: RootRole) throws {
        guard let newest else { return }
        if newest.holds(key.keyID, as: role), newest.keys[key.keyID] == key.publicKey { return }
        if newest.format == 1 {
            throw PublisherError.keyNotCurrentRoot(given: key.keyID.description, current: newest.role(.root).keyIDs[0].description,
                                                   rootVersion: newest.version)
        }
        throw PublisherError.keyNotInRole(given: key.keyID.description, role: role,
                                          allowed: newest.role(role).keyIDs.map(\.description), rootVersion: newest.version)
    }

    /// The roles that hold once `key` publishes: the newest root's, or for a new tree the single-key
    /// root 1 the publish creates.
    public func roles(publishingWith key: SecretKey) -> RootRoles { newest ?? .singleKey(key.publicKey, version: 1) }

    /// Every key any root of the tree let sign catalogs and bundles: the tree's own earlier bundles
    /// (read back to keep row layouts and to make deltas) were signed by one of them.
    public var catalogKeys: [PublicKey] {
        var keys: [PublicKey] = []
        for root in roots { for k in root.keys(for: .catalog) where !keys.contains(k) { keys.append(k) } }
        return keys
    }

    /// Writes format-1 root document `version` for `newKey`, signed by `signer`, and points `keys/root.pub` at it.
    /// The document and its signature are written before `root.pub`, each atomically.
    static func write(version: Int, newKey: PublicKey, signer: SecretKey, created: Date, tree: String) throws -> RootKeyDocument {
        let doc = RootKeyDocument(version: version, key: newKey, created: created)
        let bytes = try CanonicalJSON.encode(doc)
        let signature = try signer.sign(bytes, trustedComment: trustedComment(for: doc),
                                        untrustedComment: "root key \(version) of a CorpusSync tree, signed by key \(signer.keyID)")
        try FileIO.createDirectory("\(tree)/keys")
        let path = "\(tree)/\(TreeLayout.rootKeyPath(version: version))"
        try FileIO.writeAtomically(bytes, to: path)
        try FileIO.writeAtomically(Data(signature.fileText.utf8), to: path + TreeLayout.signatureSuffix)
        try FileIO.writeAtomically(Data(newKey.fileText.utf8), to: "\(tree)/\(RootKeyChain.publicKeyPath)")
        return doc
    }

    /// `corpusd rotate-key`: appends root N+1 (the new key) signed by root N (the current key), in
    /// a single-key tree. Afterwards catalogs must be published with the new key. A tree with roles
    /// changes its root only by a ceremony (`RootCeremony`), so that no one key can.
    @discardableResult
    public static func rotate(tree: String, currentKey: SecretKey, newKey: SecretKey, now: Date = Date()) throws -> RootKeyDocument {
        let chain = try load(tree: tree)
        guard let newest = chain.newest else {
            throw PublisherError.invalidTree(path: TreeLayout.rootKeyPath(version: 1), reason: "missing; run corpusd publish once before rotating keys")
        }
        guard newest.format == 1 else { throw PublisherError.rotationNeedsCeremony(rootVersion: newest.version) }
        try chain.checkSigner(currentKey, as: .root)
        guard newKey.publicKey != currentKey.publicKey else { throw PublisherError.sameKey(keyID: newKey.keyID.description) }
        return try write(version: chain.version + 1, newKey: newKey.publicKey, signer: currentKey, created: now, tree: tree)
    }
}
