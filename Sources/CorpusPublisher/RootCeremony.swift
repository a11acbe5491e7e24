import Foundation
import CorpusFormat

/// The ceremony that changes a tree's root without ever putting root keys on the publishing host
/// (docs/operations.md "A root ceremony"): `draft` writes the next root document, unsigned;
/// each holder runs `sign` on their own machine, which adds one signature file beside the draft;
/// `publish` installs it in the tree once `RootLink`, the rule every client applies, accepts it.
public enum RootCeremony {
    /// A year: roots are signed by people who meet for it, so they last as long as a ceremony is
    /// easy to remember to hold again.
    public static let defaultExpiry: TimeInterval = 365 * 86400
    /// From a month (more than the 30 days clients warn ahead) to three years (a date every
    /// client can represent, and keys people can still be expected to hold).
    public static let expiryRange: ClosedRange<TimeInterval> = (31 * 86400)...(1098 * 86400)

    /// The keys of one role and how many must sign.
    public struct RoleSpec: Sendable {
        public var keys: [PublicKey]
        public var threshold: Int

        public init(keys: [PublicKey], threshold: Int) {
            self.keys = keys
            self.threshold = threshold
        }
    }

    /// A draft written: the document and the root it follows (nil for root 1 of a new tree).
    public struct Draft: Sendable {
        public let document: RootDocument
        public let previous: RootRoles?
    }

    /// One holder's signature written beside a draft.
    public struct Signed: Sendable {
        public let path: String
        public let version: Int
        public let keyID: String
        /// The key is a root key of the draft itself; otherwise its signature counts only if it is
        /// a root key of the root before it (a holder of the old root, as in a migration).
        public let isRootKey: Bool
    }

    /// A root installed in a tree.
    public struct Published: Sendable {
        public let version: Int
        /// The key ids whose signatures were installed, in the order `RootLink` lists signers.
        public let signers: [String]
        /// True when `keys/root.pub` (a single-key tree's pin) was removed.
        public let removedPublicKey: Bool
    }

    /// `corpusd root draft`: writes root N+1 of `tree` (or root 1 of a new tree when `tree` is
    /// nil) to `out`, unsigned. Refuses what `RootDocument.validated` would, with the option named.
    public static func draft(from tree: String?, root: RoleSpec, catalog: RoleSpec, timestamp: RoleSpec,
                             expiresIn: TimeInterval = defaultExpiry, now: Date = Date(), out: String) throws -> Draft {
        guard expiryRange.contains(expiresIn) else {
            throw PublisherError.lifetimeOutOfRange(what: "root lifetime", seconds: expiresIn, range: expiryRange)
        }
        for (role, spec) in [(RootRole.root, root), (.catalog, catalog), (.timestamp, timestamp)] {
            try check(spec, role: role, out: out)
        }
        guard !FileManager.default.fileExists(atPath: out) else { throw PublisherError.fileExists(path: out) }
        let previous = try tree.map { try RootKeyChain.load(tree: $0) }?.newest
        let doc = RootDocument(version: (previous?.version ?? 0) + 1, created: now, expires: now.addingTimeInterval(expiresIn),
                               roles: [.root: (root.keys, root.threshold), .catalog: (catalog.keys, catalog.threshold),
                                       .timestamp: (timestamp.keys, timestamp.threshold)])
        do {
            _ = try doc.validated(what: out)
        } catch {
            throw PublisherError.invalidRootDraft(path: out, reason: "\(error)")
        }
        try FileIO.writeAtomically(try CanonicalJSON.encode(doc), to: out)
        return Draft(document: doc, previous: previous)
    }

    /// The option-level mistakes, named as the operator typed them.
    static func check(_ spec: RoleSpec, role: RootRole, out: String) throws {
        func bad(_ reason: String) -> PublisherError { .invalidRootDraft(path: out, reason: reason) }
        let option = "--\(role.rawValue)"
        guard !spec.keys.isEmpty else { throw bad("no \(option)-key given") }
        guard spec.keys.count <= RootDocument.maxKeys else { throw bad("\(spec.keys.count) \(option)-key options, more than \(RootDocument.maxKeys)") }
        var seen = Set<KeyID>()
        for k in spec.keys where !seen.insert(k.keyID).inserted { throw bad("\(option)-key names key \(k.keyID) twice") }
        guard spec.threshold >= 1, spec.threshold <= spec.keys.count else {
            throw bad("\(option)-threshold \(spec.threshold) is not between 1 and the \(spec.keys.count) \(option)-key(s) given")
        }
        if role != .root, spec.threshold > RootDocument.onlineThresholdLimit {
            throw bad("\(option)-threshold \(spec.threshold): the \(role.rawValue) role signs unattended with one key, so its threshold is 1 in this release")
        }
    }

    /// `corpusd root sign`: adds `key`'s signature of the draft at `path` as
    /// `path.<KEYID>.minisig` (replacing an earlier one by the same key).
    public static func sign(draft path: String, key: SecretKey) throws -> Signed {
        let (data, roles) = try readDraft(path)
        let signature = try key.sign(data, trustedComment: RootDocument.trustedComment(version: roles.version, signer: key.keyID),
                                     untrustedComment: "root \(roles.version) of a CorpusSync tree, signed by key \(key.keyID)")
        let out = signaturePath(of: path, signer: key.keyID)
        try FileIO.writeAtomically(Data(signature.fileText.utf8), to: out)
        return Signed(path: out, version: roles.version, keyID: key.keyID.description,
                      isRootKey: roles.holds(key.keyID, as: .root) && roles.keys[key.keyID] == key.publicKey)
    }

    /// `corpusd root publish`: installs the draft at `path` as the tree's next root, with the
    /// signature files that count, once a threshold of the previous root's root keys and one of
    /// its own have signed. Everything is checked before the first write; the signatures go in
    /// before the document (a reader that finds `root-<N>.json` finds what makes it trusted), and
    /// `keys/root.pub`, the pin of a single-key tree, goes last.
    public static func publish(draft path: String, tree: String, now: Date = Date()) throws -> Published {
        _ = try check(draft: path, tree: tree, now: now)
        try FileIO.createDirectory(tree)
        let lock = try TreeLock.take(tree: tree)
        defer { lock.release() }
        // Again under the lock: another ceremony may have installed this version meanwhile.
        let (next, data, install) = try check(draft: path, tree: tree, now: now)
        try FileIO.createDirectory("\(tree)/keys")
        for (id, signature) in install {
            try FileIO.writeAtomically(signature, to: "\(tree)/\(TreeLayout.rootSignaturePath(version: next.version, signer: id))")
        }
        try FileIO.writeAtomically(data, to: "\(tree)/\(TreeLayout.rootKeyPath(version: next.version))")
        let pin = "\(tree)/\(RootKeyChain.publicKeyPath)"
        let removed = FileManager.default.fileExists(atPath: pin)
        if removed {
            FileIO.remove(pin)
            FileIO.syncDirectory("\(tree)/keys")
        }
        return Published(version: next.version, signers: install.map(\.0.description), removedPublicKey: removed)
    }

    /// The draft as root N+1 of `tree` and the signatures to install (one per counted key), or the
    /// refusal `root publish` gives.
    static func check(draft path: String, tree: String, now: Date) throws -> (RootRoles, Data, [(KeyID, Data)]) {
        let (data, next) = try readDraft(path)
        if let expires = next.expires, next.hasExpired(at: now) {
            throw PublisherError.rootDraftExpired(version: next.version, expires: Timestamp.format(expires))
        }
        let previous = try RootKeyChain.load(tree: tree).newest
        let offered = RootLink.signerIDs(of: next, previous: previous).compactMap { id in
            FileManager.default.contents(atPath: signaturePath(of: path, signer: id))
        }
        let counted: Set<KeyID>
        do {
            counted = try RootLink.verify(next, json: data, signatures: offered, previous: previous)
        } catch let refusal as RootLink.Refusal {
            switch refusal {
            case let .wrongVersion(expected, found): throw PublisherError.rootVersionMismatch(draft: found, expected: expected)
            case .formatDowngrade: throw PublisherError.invalidRootDraft(path: path, reason: "\(refusal)")
            case .thresholdNotMet: throw PublisherError.rootThresholdNotMet(version: next.version, shortfalls: shortfalls(data, offered, next, previous))
            }
        } catch {
            // A draft is format 2 (readDraft), so RootLink has nothing else to throw for it.
            throw PublisherError.invalidRootDraft(path: path, reason: "\(error)")
        }
        // Install one file per counted key, each by its own signer: a copy of one holder's file
        // under another's name counted once and is installed once, under its signer's name.
        let keys = next.keys.merging(previous?.keys ?? [:]) { a, _ in a }
        var install: [(KeyID, Data)] = []
        for id in RootLink.signerIDs(of: next, previous: previous) where counted.contains(id) {
            if let signature = offered.first(where: { ThresholdSignatures.validSigners([$0], message: data, allowed: [id], keys: keys) == [id] }) {
                install.append((id, signature))
            }
        }
        return (next, data, install)
    }

    /// Every threshold the offered signatures miss, so one refusal names every key still needed.
    static func shortfalls(_ data: Data, _ offered: [Data], _ next: RootRoles, _ previous: RootRoles?) -> [RootShortfall] {
        var out: [RootShortfall] = []
        for root in [previous, next].compactMap({ $0 }) {
            let role = root.role(.root)
            let valid = ThresholdSignatures.validSigners(offered, message: data, allowed: role.keyIDs, keys: root.keys)
            if valid.count < role.threshold {
                out.append(RootShortfall(keysOf: root.version, signed: valid.count, threshold: role.threshold,
                                         missing: role.keyIDs.filter { !valid.contains($0) }.map(\.description)))
            }
        }
        return out
    }

    /// A draft's bytes and roles; only a root document with roles (format 2) is a draft.
    static func readDraft(_ path: String) throws -> (Data, RootRoles) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PublisherError.invalidRootDraft(path: path, reason: "it cannot be read (make it with corpusd root draft)")
        }
        let roles: RootRoles
        do {
            roles = try RootRoles.parse(data, what: path)
        } catch {
            throw PublisherError.invalidRootDraft(path: path, reason: "\(error)")
        }
        guard roles.format >= RootDocument.currentFormat else {
            throw PublisherError.invalidRootDraft(path: path, reason: "a single-key root document (format \(roles.format)); single-key trees rotate with corpusd rotate-key")
        }
        return (data, roles)
    }

    /// `FILE.<KEYID>.minisig`: the name each holder's signature has beside the draft, and in the
    /// tree beside the installed document.
    public static func signaturePath(of draft: String, signer: KeyID) -> String { "\(draft).\(signer)\(TreeLayout.signatureSuffix)" }
}
