import Foundation

/// The publisher's store of payload file keys (`corpusd publish --key-store DIR`, read by
/// `corpusd serve --key-store DIR`): one file per payload, `<payload sha256>.key`, mode 600, in a
/// folder of mode 700 that must lie outside the published tree (a key in the tree would be
/// uploaded and mirrored with the payload it opens). docs/operations.md "The key store".
public struct KeyStore: Sendable {
    /// One payload's key and what it encrypts. Secret: its description never shows the key.
    public struct Entry: Codable, Sendable, Equatable, CustomStringConvertible {
        public var format = 1
        public var corpus: String
        public var version: CorpusVersion
        /// `bundle` or `delta`.
        public var object: String
        /// The SHA-256 of the plaintext bundle or delta.
        public var plaintext: SHA256Digest
        public var payload: SHA256Digest
        public var payloadSize: Int64
        var fileKey: String

        enum CodingKeys: String, CodingKey {
            case format, corpus, version, object, payload
            case plaintext = "plaintext_sha256"
            case payloadSize = "payload_size"
            case fileKey = "file_key"
        }

        public init(corpus: String, version: CorpusVersion, object: String, plaintext: SHA256Digest, payload: BundleRef, fileKey: AgeFileKey) {
            self.corpus = corpus
            self.version = version
            self.object = object
            self.plaintext = plaintext
            self.payload = payload.digest
            payloadSize = payload.size
            self.fileKey = AgeBase64.encode(fileKey.bytes)
        }

        public func key() throws -> AgeFileKey {
            guard let bytes = AgeBase64.decode(Substring(fileKey)) else { throw FormatError.malformed(what: "key store entry", reason: "the file key is not base64") }
            do { return try AgeFileKey(bytes: bytes) } catch { throw FormatError.malformed(what: "key store entry", reason: "the file key is not 16 bytes") }
        }

        public var payloadRef: BundleRef { BundleRef(path: TreeLayout.payloadPath(sha256: payload.hex), digest: payload, size: payloadSize) }

        public var description: String { "KeyStore.Entry(\(corpus) \(version) \(object), payload \(payload.prefix(12))…, key redacted)" }
    }

    public let directory: String

    /// Opens (creating it, mode 700, when `create`) the store at `directory`. The caller checks
    /// first that it is not inside the published tree (`isInside`).
    public init(directory: String, create: Bool) throws {
        if create { try FileIO.createDirectory(directory, mode: 0o700) }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            throw FormatError.io(operation: "open key store", path: directory, errno: ENOENT)
        }
        self.directory = directory
    }

    /// True when `path` is `tree` or below it, symbolic links resolved.
    public static func isInside(_ path: String, _ tree: String) -> Bool {
        func resolved(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().standardizedFileURL.path }
        let p = resolved(path), t = resolved(tree)
        return p == t || p.hasPrefix(t.hasSuffix("/") ? t : t + "/")
    }

    func file(_ payload: SHA256Digest) -> String { "\(directory)/\(payload.hex).key" }

    /// The entry of a payload, or nil when the store has none.
    public func entry(payload: SHA256Digest) throws -> Entry? {
        guard let data = FileManager.default.contents(atPath: file(payload)) else { return nil }
        let entry = try CanonicalJSON.decode(Entry.self, from: data, what: "key store entry")
        guard entry.payload == payload else { throw FormatError.malformed(what: "key store entry \(file(payload))", reason: "it names another payload") }
        return entry
    }

    /// Every entry, for reuse: a bundle already encrypted keeps its payload and key.
    public func entries() -> [Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".key") }.compactMap { name in
            FileManager.default.contents(atPath: "\(directory)/\(name)").flatMap { try? CanonicalJSON.decode(Entry.self, from: $0, what: "key store entry") }
        }
    }

    /// Writes a new entry (mode 600, fsynced, folder synced) before the payload it opens is published.
    public func add(_ entry: Entry) throws {
        let path = file(entry.payload)
        if FileManager.default.fileExists(atPath: path) { return }
        try FileIO.writeNew(try CanonicalJSON.encode(entry), to: path, mode: 0o600)
        FileIO.syncDirectory(directory)
    }
}
