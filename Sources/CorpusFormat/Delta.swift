import Foundation

/// A catalog entry's reference to a delta that turns an earlier version into the entry's version
/// (docs/format.md "Delta"): which installed content it applies to, and the file to fetch.
public struct DeltaRef: Codable, Hashable, Sendable {
    /// The version a client must have installed.
    public var fromVersion: CorpusVersion
    /// That version's logical content digest (`Manifest.content`).
    public var fromContent: SHA256Digest
    /// Relative to the tree root: `deltas/<sha256>.delta.zip`.
    public var path: String
    /// The SHA-256 of the file. JSON `sha256`.
    public var digest: SHA256Digest
    public var size: Int64
    /// The delta encrypted once as an age payload, under a file key of its own; absent in the clear.
    public var payload: BundleRef?

    enum CodingKeys: String, CodingKey {
        case path, size, payload
        case fromVersion = "from_version"
        case fromContent = "from_content_digest"
        case digest = "sha256"
    }

    public init(fromVersion: CorpusVersion, fromContent: SHA256Digest, file: BundleRef) {
        self.fromVersion = fromVersion
        self.fromContent = fromContent
        path = file.path
        digest = file.digest
        size = file.size
    }

    /// The file as the downloader fetches it (same rules as a bundle: hash and size are signed).
    public var file: BundleRef { BundleRef(path: path, digest: digest, size: size) }
}

/// Member names of a delta, in the order the writer stores them.
public enum DeltaLayout {
    public static let document = "delta.json"
    public static let signature = "delta.json.minisig"
    /// The new version's manifest and signature, byte for byte as its bundle holds them.
    public static let manifest = BundleLayout.manifest
    public static let manifestSignature = BundleLayout.signature
    /// The row changes (`DeltaChanges`), canonical JSON.
    public static let changes = "changes.json"
    /// The vectors of the added rows, a vector file (`VectorFileHeader`) of those rows in order.
    public static let vectors = BundleLayout.vectors
    /// Every member `delta.json` lists with its hash and size.
    public static let payloadMembers: [String] = [manifest, manifestSignature, changes, vectors]
    public static let allMembers: [String] = [document, signature, manifest, manifestSignature, changes, vectors]
}

/// The signed description of one delta (`delta.json`): the two versions it joins and the hash and
/// size of every other member.
public struct DeltaDocument: Codable, Hashable, Sendable {
    public static let currentFormat = 1

    /// The installed version a delta applies to, as precisely as a client can check it without
    /// reading its pack: the version, its content digest, its vector file's hash, and (when its
    /// manifest names one) its rows digest.
    public struct Base: Codable, Hashable, Sendable {
        public var version: CorpusVersion
        public var content: SHA256Digest
        public var vectors: SHA256Digest
        public var rows: SHA256Digest

        enum CodingKeys: String, CodingKey {
            case version
            case content = "content_digest"
            case vectors = "vectors_sha256"
            case rows = "rows_digest"
        }

        public init(version: CorpusVersion, content: SHA256Digest, vectors: SHA256Digest, rows: SHA256Digest) {
            self.version = version
            self.content = content
            self.vectors = vectors
            self.rows = rows
        }
    }

    /// The version a delta leads to: its signed manifest travels in the delta.
    public struct Target: Codable, Hashable, Sendable {
        public var version: CorpusVersion
        public var content: SHA256Digest
        /// SHA-256 of the `corpus.json` bytes the delta carries.
        public var manifest: SHA256Digest

        enum CodingKeys: String, CodingKey {
            case version
            case content = "content_digest"
            case manifest = "manifest_sha256"
        }

        public init(version: CorpusVersion, content: SHA256Digest, manifest: SHA256Digest) {
            self.version = version
            self.content = content
            self.manifest = manifest
        }
    }

    /// How many rows each kind of change touches (for reports; the changes member is the truth).
    public struct Counts: Codable, Hashable, Sendable {
        public var removed: Int
        public var kept: Int
        public var added: Int

        public init(removed: Int, kept: Int, added: Int) {
            self.removed = removed
            self.kept = kept
            self.added = added
        }
    }

    public var format: Int
    public var id: String
    public var from: Base
    public var to: Target
    public var rows: Counts
    public var members: [String: MemberInfo]

    public init(id: String, from: Base, to: Target, rows: Counts, members: [String: MemberInfo] = [:]) {
        format = Self.currentFormat
        self.id = id
        self.from = from
        self.to = to
        self.rows = rows
        self.members = members
    }

    public func canonicalBytes() throws -> Data { try CanonicalJSON.encode(self) }

    /// Decodes and checks what later code relies on: the format, the id, two different versions,
    /// and a member table naming exactly the payload members.
    public static func decode(_ data: Data) throws -> DeltaDocument {
        let d = try CanonicalJSON.decode(DeltaDocument.self, from: data, what: "delta document")
        guard d.format == currentFormat else {
            throw FormatError.unsupported(what: "delta document", reason: "format \(d.format); this build reads format \(currentFormat)")
        }
        try Identifier.validate(d.id, what: "corpus id")
        guard d.from.version != d.to.version else {
            throw FormatError.malformed(what: "delta document", reason: "it leads from version \(d.from.version) to itself")
        }
        guard Set(d.members.keys) == Set(DeltaLayout.payloadMembers), d.members.values.allSatisfy({ $0.size >= 0 }) else {
            throw FormatError.malformed(what: "delta document", reason: "its members must be \(DeltaLayout.payloadMembers.joined(separator: ", "))")
        }
        return d
    }

    /// The trusted comment signed with the document, so `minisign -V` shows what was verified.
    public var trustedComment: String { "delta:\(id) from:\(from.version) to:\(to.version) content:\(to.content.prefix(16))" }
}
