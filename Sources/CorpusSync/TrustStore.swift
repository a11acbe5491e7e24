import CorpusFormat
import Foundation

/// A root the client trusts for a remote: one version of the tree's root document, with its keys by role.
public struct TrustedRoot: Sendable, Hashable {
    public var roles: RootRoles

    public init(roles: RootRoles) { self.roles = roles }

    /// A single-key root (format 1): `key` holds every role.
    public init(version: Int, key: PublicKey) { roles = .singleKey(key, version: version) }

    public var version: Int { roles.version }

    /// The keys that sign catalogs, bundle manifests, deltas and embedder artifacts.
    public var catalogKeys: [PublicKey] { roles.keys(for: .catalog) }

    /// How long before a root expires `corpus status` and the publisher's summary start warning:
    /// weeks, so its holders can meet before clients refuse the tree.
    public static let expiryWarningWindow: TimeInterval = 30 * 86400

    /// The warning to show while the root expires within `expiryWarningWindow`, nil otherwise.
    public func expiryWarning(now: Date = Date()) -> String? {
        guard let expires = roles.expires, expires.timeIntervalSince(now) < Self.expiryWarningWindow else { return nil }
        let days = Int(max(0, expires.timeIntervalSince(now)) / 86400)
        return "root version \(version) expires at \(Timestamp.format(expires)) (in \(days) day\(days == 1 ? "" : "s")); "
            + "clients refuse the catalog after that until its root key holders sign and publish a new root"
    }
}

extension TrustedRoot {
    /// Checks a detached minisign signature of a tree file (`file`: the catalog or the timestamp)
    /// as one by a key of `role`: text, made by a key of the role (`untrustedKey` otherwise),
    /// valid over `message` and its trusted comment. Returns the signing key's id.
    @discardableResult
    public func verifySignature(_ signature: Data, of message: Data, file: String, role: RootRole) throws -> KeyID {
        try verify(signature, of: message, file: file, role: role)
    }

    @discardableResult
    func verify(_ signature: Data, of message: Data, file: String, role: RootRole) throws -> KeyID {
        guard let text = String(data: signature, encoding: .utf8) else {
            throw SyncError.malformed(what: "\(file)\(TreeLayout.signatureSuffix)", reason: "not UTF-8 text")
        }
        let sig = try Signature(text: text)
        guard roles.holds(sig.keyID, as: role), let key = roles.keys[sig.keyID] else { throw SyncError.untrustedKey(keyID: sig.keyID.description) }
        try key.verify(sig, message: message)
        return sig.keyID
    }
}

/// A root document exactly as fetched, already verified against the previous root, with the
/// signature files that were offered for it (by file name: `root-<N>.json.minisig` or
/// `root-<N>.json.<KEYID>.minisig`).
public struct VerifiedRootDocument: Sendable, Hashable {
    public var root: TrustedRoot
    public var json: Data
    public var signatures: [String: Data]
}

/// The accepted root chain of each remote, under `HOME/trust/<remote>/`.
///
/// The chain starts at the remote's pinned root (a key or a root document); `root-<N>.json` and
/// its signature files extend it and are re-verified link by link every time it is read, so a
/// damaged or planted file stops the chain.
public struct TrustStore: Sendable {
    public let home: HomeLayout
    /// Rotation chains longer than this are refused rather than walked forever.
    public static let maxChainLength = 256

    public init(home: HomeLayout) { self.home = home }

    private func path(_ remote: Remote, _ name: String) -> String { "\(home.trust(remote.name))/\(name)" }

    /// The newest accepted root of `remote`: the pinned root, extended by every stored link that verifies.
    public func currentRoot(for remote: Remote) throws -> TrustedRoot {
        try chain(for: remote).last!
    }

    /// Every root of `remote` from the pinned one to the newest accepted, in order.
    public func chain(for remote: Remote) throws -> [TrustedRoot] {
        var chain = [try remote.pinnedRoot()]
        for _ in 0..<Self.maxChainLength {
            let file = path(remote, Self.fileName(TreeLayout.rootKeyPath(version: chain.last!.version + 1)))
            guard let json = FileManager.default.contents(atPath: file) else { break }
            var offered: [String: Data] = [:]
            for p in try Self.signaturePaths(json: json, previous: chain.last!, file: file) {
                let name = Self.fileName(p)
                if let data = FileManager.default.contents(atPath: path(remote, name)) { offered[name] = data }
            }
            chain.append(try Self.verifyLink(json: json, signatures: offered, previous: chain.last!, file: file).root)
        }
        return chain
    }

    /// The last path segment of a tree path: how the trust folder names a chain file.
    static func fileName(_ treePath: String) -> String { String(treePath.split(separator: "/").last ?? Substring(treePath)) }

    /// The tree paths of the signature files that can count for the root document `json`
    /// (`RootLink.signaturePaths`); the document is parsed, not yet trusted.
    public static func signaturePaths(json: Data, previous: TrustedRoot?, file: String) throws -> [String] {
        try mapped(file) { RootLink.signaturePaths(of: try RootRoles.parse(json, what: file), previous: previous?.roles) }
    }

    /// Checks that `json` is root document `previous.version + 1` (or root 1, signing itself, when
    /// `previous` is nil) with the signature files offered, by file name (`RootLink`).
    public static func verifyLink(json: Data, signatures: [String: Data], previous: TrustedRoot?, file: String) throws -> VerifiedRootDocument {
        try mapped(file) {
            let next = try RootRoles.parse(json, what: file)
            // Only the files the rule names count, in the rule's order, however many were offered.
            let ordered = RootLink.signaturePaths(of: next, previous: previous?.roles).compactMap { signatures[fileName($0)] }
            try RootLink.verify(next, json: json, signatures: ordered, previous: previous?.roles)
            return VerifiedRootDocument(root: TrustedRoot(roles: next), json: json, signatures: signatures)
        }
    }

    /// Runs a step of the root rule, turning its refusals into the client's.
    private static func mapped<T>(_ file: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as FormatError {
            throw SyncError.from(e)
        } catch let e as RootLink.Refusal {
            switch e {
            case .wrongVersion, .formatDowngrade: throw SyncError.catalogMismatch(reason: "\(file) \(e)")
            case .thresholdNotMet: throw SyncError.rootNotTrusted(file: file, reason: e.description)
            }
        }
    }

    /// Stores newly accepted links (in order). Each file is replaced atomically, the signatures
    /// before the document, so a crash leaves at most unused signatures behind.
    public func persist(_ links: [VerifiedRootDocument], for remote: Remote) throws {
        guard !links.isEmpty else { return }
        try FileIO.createDirectory(home.trust(remote.name))
        for link in links {
            for (name, data) in link.signatures.sorted(by: { $0.key < $1.key }) { try FileIO.writeAtomically(data, to: path(remote, name)) }
            try FileIO.writeAtomically(link.json, to: path(remote, Self.fileName(TreeLayout.rootKeyPath(version: link.root.version))))
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
