import Foundation
import CorpusFormat

/// The root key documents of a published tree (`keys/root-<N>.json` + `.minisig`).
///
/// Version 1 is signed by itself, version N+1 by version N's key. Loading verifies the whole
/// chain, so a publisher never extends or signs under a damaged one.
public struct RootKeyChain: Sendable {
    public let documents: [RootKeyDocument]

    public var current: RootKeyDocument? { documents.last }
    public var version: Int { documents.count }

    /// The trusted comment of a root key document's signature.
    public static func trustedComment(for doc: RootKeyDocument) -> String { "root:\(doc.version) key:\(doc.keyID)" }

    /// Reads `keys/root-1.json`, `root-2.json`, … until one is missing, verifying each link.
    public static func load(tree: String) throws -> RootKeyChain {
        var docs: [RootKeyDocument] = []
        var signer: PublicKey?
        while true {
            let rel = TreeLayout.rootKeyPath(version: docs.count + 1)
            let path = "\(tree)/\(rel)"
            guard let data = FileManager.default.contents(atPath: path) else { break }
            func bad(_ reason: String) -> PublisherError { .invalidTree(path: rel, reason: reason) }
            let doc: RootKeyDocument
            let key: PublicKey
            do {
                doc = try CanonicalJSON.decode(RootKeyDocument.self, from: data, what: "root key document")
                key = try doc.publicKey()
            } catch {
                throw bad("\(error)")
            }
            guard doc.version == docs.count + 1 else { throw bad("it says version \(doc.version)") }
            guard doc.keyID == key.keyID.description else { throw bad("its key_id does not match its key") }
            do {
                let signature = try Signature(contentsOf: path + TreeLayout.signatureSuffix)
                try (signer ?? key).verify(signature, message: data)
            } catch {
                throw bad("its signature does not verify (\(error))")
            }
            docs.append(doc)
            signer = key
        }
        return RootKeyChain(documents: docs)
    }

    /// Refuses a signing key that is not the current root key (or, for an empty tree, accepts any).
    public func checkSigner(_ key: SecretKey) throws {
        guard let current else { return }
        guard current.key == key.publicKey.base64 else {
            throw PublisherError.keyNotCurrentRoot(given: key.keyID.description, current: current.keyID, rootVersion: current.version)
        }
    }

    /// Writes root key document `version` for `newKey`, signed by `signer`, and points `keys/root.pub` at it.
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

    public static let publicKeyPath = "keys/root.pub"

    /// `corpusd rotate-key`: appends root N+1 (the new key) signed by root N (the current key).
    /// Afterwards catalogs must be published with the new key.
    @discardableResult
    public static func rotate(tree: String, currentKey: SecretKey, newKey: SecretKey, now: Date = Date()) throws -> RootKeyDocument {
        let chain = try load(tree: tree)
        guard chain.current != nil else {
            throw PublisherError.invalidTree(path: TreeLayout.rootKeyPath(version: 1), reason: "missing; run corpusd publish once before rotating keys")
        }
        try chain.checkSigner(currentKey)
        guard newKey.publicKey != currentKey.publicKey else { throw PublisherError.sameKey(keyID: newKey.keyID.description) }
        return try write(version: chain.version + 1, newKey: newKey.publicKey, signer: currentKey, created: now, tree: tree)
    }
}
