import CorpusFormat
import Foundation

/// A root key the client trusts for a remote, with its version in the rotation chain.
public struct TrustedRoot: Sendable, Hashable {
    public var version: Int
    public var key: PublicKey

    public init(version: Int, key: PublicKey) {
        self.version = version
        self.key = key
    }
}

extension TrustedRoot {
    /// Checks a detached minisign signature of a tree file (`file`: the catalog or a root key
    /// document) as this root's: text, made by this root's key (`untrustedKey` otherwise), valid
    /// over `message` and its trusted comment. Format refusals are thrown as they are.
    func verify(_ signature: Data, of message: Data, file: String) throws {
        guard let text = String(data: signature, encoding: .utf8) else {
            throw SyncError.malformed(what: "\(file)\(TreeLayout.signatureSuffix)", reason: "not UTF-8 text")
        }
        let sig = try Signature(text: text)
        guard sig.keyID == key.keyID else { throw SyncError.untrustedKey(keyID: sig.keyID.description) }
        try key.verify(sig, message: message)
    }
}

/// A root key document exactly as fetched, already verified against the previous root.
public struct VerifiedRootDocument: Sendable, Hashable {
    public var root: TrustedRoot
    public var json: Data
    public var signature: Data
}

/// The accepted root key chain of each remote, under `HOME/trust/<remote>/`.
///
/// The chain starts at the remote's pinned key; `root-<N>.json(.minisig)` files extend it and are
/// re-verified link by link every time it is read, so a damaged or planted file stops the chain.
public struct TrustStore: Sendable {
    public let home: HomeLayout
    /// Rotation chains longer than this are refused rather than walked forever.
    public static let maxChainLength = 256

    public init(home: HomeLayout) { self.home = home }

    private func paths(_ remote: Remote, version: Int) -> (json: String, signature: String) {
        let json = "\(home.trust(remote.name))/root-\(version).json"
        return (json, json + TreeLayout.signatureSuffix)
    }

    /// The newest accepted root of `remote`: the pinned key, extended by every stored link that verifies.
    public func currentRoot(for remote: Remote) throws -> TrustedRoot {
        var root = TrustedRoot(version: remote.rootVersion, key: try remote.pinnedKey())
        for _ in 0..<Self.maxChainLength {
            let next = paths(remote, version: root.version + 1)
            guard let json = FileManager.default.contents(atPath: next.json),
                  let sig = FileManager.default.contents(atPath: next.signature) else { break }
            root = try Self.verifyLink(json: json, signature: sig, previous: root, file: next.json).root
        }
        return root
    }

    /// Checks that `json` is root key document `previous.version + 1`, signed by `previous`.
    public static func verifyLink(json: Data, signature: Data, previous: TrustedRoot, file: String) throws -> VerifiedRootDocument {
        let expected = previous.version + 1
        do {
            try previous.verify(signature, of: json, file: file)
            let doc = try CanonicalJSON.decode(RootKeyDocument.self, from: json, what: file)
            guard doc.format == 1, doc.version == expected else {
                throw SyncError.catalogMismatch(reason: "\(file) says root version \(doc.version), expected \(expected)")
            }
            let key = try doc.publicKey()
            guard key.keyID.description == doc.keyID else {
                throw SyncError.malformed(what: file, reason: "key_id does not match the key")
            }
            return VerifiedRootDocument(root: TrustedRoot(version: expected, key: key), json: json, signature: signature)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    /// Stores newly accepted links (in order). Each file is replaced atomically, the signature
    /// before the document, so a crash leaves at most an unused signature behind.
    public func persist(_ links: [VerifiedRootDocument], for remote: Remote) throws {
        guard !links.isEmpty else { return }
        try FileIO.createDirectory(home.trust(remote.name))
        for link in links {
            let p = paths(remote, version: link.root.version)
            try FileIO.writeAtomically(link.signature, to: p.signature)
            try FileIO.writeAtomically(link.json, to: p.json)
        }
    }
}

extension TrustStore {
    /// `trust/local/`: the keys imports were trusted with (`corpus import FILE --trust KEY`), one
    /// `<keyid>.pub` each, so `verify` can check imported corpora later (docs/layout.md).
    var localFolder: String { home.trust(HomeLayout.localRemote) }

    /// The keys imports were trusted with; a file that is not a public key named by its own key id is ignored.
    public func localKeys() -> [PublicKey] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: localFolder)) ?? []).sorted()
        return names.compactMap { name in
            guard name.hasSuffix(".pub"), let key = try? PublicKey(contentsOf: "\(localFolder)/\(name)"),
                  name == "\(key.keyID).pub" else { return nil }
            return key
        }
    }

    /// Remembers a key an import was trusted with.
    public func rememberLocal(_ key: PublicKey) throws {
        try io {
            try FileIO.createDirectory("\(home.root)/trust")
            try FileIO.createDirectory(localFolder)
            try FileIO.writeAtomically(Data(key.fileText.utf8), to: "\(localFolder)/\(key.keyID).pub")
        }
    }
}
