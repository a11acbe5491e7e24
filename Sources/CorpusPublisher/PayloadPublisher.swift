import CorpusFormat
import Foundation

/// What `corpusd publish --key-store DIR --gate-url URL` asks for: entitled corpora published as
/// encrypted payloads too, their keys kept in `keyStore`, released by the gate at `gateURL`.
public struct PayloadEncryption: Sendable {
    public var keyStore: String
    public var gateURL: String

    public init(keyStore: String, gateURL: String) {
        self.keyStore = keyStore
        self.gateURL = gateURL
    }
}

/// Encrypts each entitled bundle version, and each of its deltas, once (docs/format.md
/// "Encrypted entitled corpora"): a fresh file key per object, the key written to the key store
/// before the payload reaches the tree, and a payload already published for the same plaintext
/// reused with its key (a republish does not re-encrypt, so mirrors and caches keep their copy).
struct PayloadPublisher {
    let store: KeyStore
    let tree: String
    let staging: String

    init(_ encryption: PayloadEncryption, tree: String, staging: String) throws {
        try EncryptedPayload.checkGate(encryption.gateURL)
        guard !KeyStore.isInside(encryption.keyStore, tree) else { throw PublisherError.keyStoreInsideTree(store: encryption.keyStore, tree: tree) }
        store = try KeyStore(directory: encryption.keyStore, create: true)
        self.tree = tree
        self.staging = staging
    }

    /// Sets the payload of every entitled prepared corpus and of its deltas; returns the payload
    /// files staged, to be moved into `payloads/` with the other content-addressed files.
    func encrypt(_ prepared: inout [TreePublisher.Prepared]) throws -> [(staged: String, ref: BundleRef)] {
        let known = store.entries()
        var staged: [(staged: String, ref: BundleRef)] = []
        func payload(of plaintext: String, digest: SHA256Digest, corpus: String, version: CorpusVersion, object: String) throws -> BundleRef {
            if let entry = known.first(where: { $0.plaintext == digest && $0.object == object }),
               entry.payloadRef.matches(fileAt: "\(tree)/\(entry.payloadRef.path)") {
                return entry.payloadRef
            }
            let key = try AgeFileKey.generate()
            let out = "\(staging)/\(digest.hex).\(object).age"
            let ref = try EncryptedPayload.encrypt(fileAt: plaintext, to: out, fileKey: key)
            try store.add(KeyStore.Entry(corpus: corpus, version: version, object: object, plaintext: digest, payload: ref, fileKey: key))
            staged.append((out, ref))
            return ref
        }
        for i in prepared.indices where prepared[i].entry.access == .entitled {
            let p = prepared[i]
            prepared[i].payload = try payload(of: p.staged ?? "\(tree)/\(p.cached.bundle.path)", digest: p.cached.bundle.digest,
                                              corpus: p.entry.id, version: p.entry.version, object: "bundle")
            for j in p.deltas.indices {
                let d = p.deltas[j]
                prepared[i].deltas[j].ref.payload = try payload(of: d.staged ?? "\(tree)/\(d.ref.path)", digest: d.ref.digest,
                                                                corpus: p.entry.id, version: p.entry.version, object: "delta")
            }
        }
        return staged
    }
}
