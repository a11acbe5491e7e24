import CorpusEngine
import CorpusFormat
import Foundation

/// Re-checks installed corpora (`corpus verify`, and the damage check of `install` and `sync`):
/// every file's hash and size against the signed manifest, the manifest's signature against the
/// keys trusted for its remote, and the pack opened as searches open it with its integrity check.
struct InstalledVerification: Sendable {
    let home: HomeLayout
    let config: ClientConfig

    /// Checks the installed corpora `name` selects (`id`, `remote/id`, or every one for nil); a
    /// corpus whose install record is damaged is named too.
    static func verify(_ name: String?, home: HomeLayout) throws -> [CorpusClient.VerifyOutcome] {
        func selected(_ remote: String, _ id: String) -> Bool { name == nil || name == id || name == "\(remote)/\(id)" }
        let targets = home.installed().filter { selected($0.record.remote, $0.record.id) }
        let damaged = home.damagedInstalls().filter { d in
            let parts = d.name.split(separator: "/").map(String.init)
            return selected(parts[0], parts[1])
        }
        if let name, targets.isEmpty, damaged.isEmpty { throw SyncError.notInstalled(name: name) }
        let verification = InstalledVerification(home: home, config: try ClientConfig.load(home))
        var out = targets.map(verification.check)
        out += damaged.map { CorpusClient.VerifyOutcome(name: $0.name, error: $0.error) }
        return out.sorted { $0.name < $1.name }
    }

    /// The per-corpus check of `verify`: the version folder `listed` names, checked in full.
    ///
    /// Another process may remove the corpus, or replace its version (and `gc` the old one),
    /// between the listing and the last file read; a file that is then missing says nothing about
    /// the corpus. So a failure counts only if `current` still points at the folder checked: a
    /// corpus no longer installed is `removed`, one now at another version is checked there.
    func check(_ listed: InstalledVersion) -> CorpusClient.VerifyOutcome {
        let (remote, id) = (listed.record.remote, listed.record.id)
        let name = "\(remote)/\(id)"
        var directory = listed.directory
        var followed = 1
        while true {
            guard let error = fullCheck(directory: directory, remote: remote, name: name) else {
                return CorpusClient.VerifyOutcome(name: name, error: nil)
            }
            guard let now = home.currentVersionDirectory(remote: remote, id: id) else {
                return CorpusClient.VerifyOutcome(name: name, error: nil, removed: true)
            }
            // Still the folder checked: the failure is the corpus's own. Bounded: a corpus replaced
            // at every look is reported with the last failure.
            if now == directory || followed == Self.attemptsWhileReplaced {
                return CorpusClient.VerifyOutcome(name: name, error: error)
            }
            directory = now
            followed += 1
        }
    }

    /// How many versions of one corpus `check` follows while other processes keep replacing it.
    static let attemptsWhileReplaced = 3

    /// Why an installed corpus's current version cannot be trusted any more, or nil when it is intact.
    ///
    /// Hashing every file on every sync would cost seconds per large corpus, so the sizes and
    /// modification times recorded at install decide first; only a folder whose files changed (or
    /// whose record predates the stamps) is checked in full, as `corpus verify` does. A folder that
    /// passes the full check gets its stamps recorded afresh.
    func damage(of have: InstalledCorpusRecord) -> SyncError? {
        guard let dir = home.currentVersionDirectory(remote: have.remote, id: have.id),
              var record = InstallRecord.read(versionDirectory: dir) else { return nil }
        if record.stampsMatch(dir) { return nil }
        if let error = fullCheck(directory: dir, remote: have.remote, name: have.qualifiedName) {
            // Removed or replaced by another process meanwhile (see `check`): nothing to repair here.
            return home.currentVersionDirectory(remote: have.remote, id: have.id) == dir ? error : nil
        }
        record.files = FileStamp.folder(dir)
        if let bytes = try? JSONEncoder().encode(record) {
            try? FileIO.writeAtomically(bytes, to: "\(dir)/\(InstallRecord.fileName)")
        }
        return nil
    }

    /// Every file against the signed manifest, the signature against the keys trusted for
    /// `remote`, and the pack opened as searches open it with its integrity check.
    func fullCheck(directory: String, remote: String, name: String) -> SyncError? {
        do {
            try Self.verifyFiles(directory: directory, trustedKeys: verificationKeys(for: remote))
        } catch {
            return .carrying(error, what: name)
        }
        do {
            try InstalledCorpus.checkExtracted(folder: directory, remote: remote)
            return nil
        } catch let e as EngineError {
            // Every refusal of the pack check, whether or not it is one of trust: the folder is unusable.
            return .unsafePack(corpus: name, cause: e)
        } catch {
            return .carrying(error, what: name)
        }
    }

    /// The keys an installed corpus of `remote` may be signed by: the catalog keys of every root
    /// version accepted for every configured remote, so a corpus installed under an earlier root
    /// still verifies after a rotation (new installs need the newest root's: `PendingCatalogs`),
    /// and for imported corpora the keys imports were trusted with.
    func verificationKeys(for remote: String) -> [PublicKey] {
        let trust = TrustStore(home: home)
        var keys: [PublicKey] = []
        for r in config.remotes {
            for root in (try? trust.chain(for: r)) ?? [] { keys += root.catalogKeys.filter { !keys.contains($0) } }
        }
        if remote == HomeLayout.localRemote { keys += trust.localKeys() }
        return keys
    }

    /// Re-verifies a version folder against its own signed manifest: the signature by one of
    /// `trustedKeys`, then every member's size and SHA-256.
    static func verifyFiles(directory: String, trustedKeys: [PublicKey]) throws {
        let manifestPath = "\(directory)/\(BundleLayout.manifest)"
        guard let bytes = FileManager.default.contents(atPath: manifestPath) else {
            throw SyncError.io(operation: "read", path: manifestPath, errno: ENOENT)
        }
        let signature = try io { try Signature(contentsOf: "\(directory)/\(BundleLayout.signature)") }
        guard let key = trustedKeys.first(where: { $0.keyID == signature.keyID }) else {
            throw SyncError.untrustedKey(keyID: signature.keyID.description)
        }
        try io { try key.verify(signature, message: bytes) }
        let manifest = try io { try Manifest.decode(bytes) }
        let local = try InstallRecord.load(versionDirectory: directory)?.localPack
        for (name, info) in manifest.members.sorted(by: { $0.key < $1.key }) {
            // A pack this client wrote (from a delta, or indexed at install) is checked against its
            // own hash, then its rows against the signed manifest (LocalPackCheck.swift).
            if name == BundleLayout.pack, let local {
                try verifyLocalPack(directory: directory, local: local, manifest: manifest)
                continue
            }
            let (actual, size) = try io { try SHA256.digest(fileAt: "\(directory)/\(name)") }
            guard size == info.size else { throw SyncError.sizeMismatch(file: name, expected: info.size, actual: size) }
            guard actual == info.sha256 else { throw SyncError.hashMismatch(file: name, expected: info.sha256.hex, actual: actual.hex) }
        }
    }
}

extension CorpusClient {
    /// One corpus `verify` checked: nil `error` when it verified.
    public struct VerifyOutcome: Sendable {
        public var name: String
        public var error: SyncError?
        /// True when another process removed the corpus while it was being checked: neither
        /// verified nor damaged, and `error` is nil.
        public var removed = false
    }
}
