import Foundation

/// Which embedder produced a corpus's vectors, and how they are stored.
public struct EmbedderInfo: Codable, Hashable, Sendable {
    /// A stable name such as `hash-uni-bi-384-v1`; a query embedder must report the same.
    public var id: String
    public var dimension: Int
    /// `int8` (per-row scale) or `f32`.
    public var encoding: String
    /// The model digest (`EmbedderManifest.digest(of:)`) for embedders that have a model artifact;
    /// nil for model-free embedders. JSON `digest`.
    public var modelDigest: SHA256Digest?

    enum CodingKeys: String, CodingKey {
        case id, dimension, encoding
        case modelDigest = "digest"
    }

    public init(id: String, dimension: Int, encoding: String, modelDigest: SHA256Digest? = nil) {
        self.id = id
        self.dimension = dimension
        self.encoding = encoding
        self.modelDigest = modelDigest
    }
}

/// SHA-256 and size of one bundle member, as the signed manifest records them.
public struct MemberInfo: Codable, Hashable, Sendable {
    public var sha256: SHA256Digest
    public var size: Int64

    public init(sha256: SHA256Digest, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }
}

/// The signed description of one corpus version (`corpus.json` in a bundle).
public struct Manifest: Codable, Hashable, Sendable {
    public static let currentFormat = 1

    public var format: Int
    public var id: String
    public var version: CorpusVersion
    public var title: String
    public var description: String
    public var language: String
    public var license: String
    public var embedder: EmbedderInfo
    public var documents: Int
    public var passages: Int
    /// The logical content digest (`ContentDigest`): equal for equal passages, whatever the bytes
    /// of the pack. JSON `content_digest`.
    public var content: SHA256Digest
    /// Every member other than the manifest and its signature.
    public var members: [String: MemberInfo]
    /// The digest of every row of the pack (`PackDigest`, docs/format.md "Rows digest"): what a
    /// client that built its pack from a delta checks it against. JSON `rows_digest`; absent from
    /// manifests written before deltas existed.
    public var rowsDigest: SHA256Digest?
    /// `install` when the pack's FTS5 index is empty and the client builds it at install, so the
    /// download holds no index (docs/format.md "Index built at install"). Such a manifest is
    /// format 2, which clients that cannot build the index refuse rather than install a pack that
    /// finds nothing by words. Nil: the pack holds its index (format 1).
    public var index: PackIndex? {
        didSet { format = index == nil ? Manifest.currentFormat : Manifest.indexAtInstallFormat }
    }

    public enum PackIndex: String, Codable, Hashable, Sendable {
        case install
    }

    /// The manifest format of a bundle whose pack's index is built at install.
    public static let indexAtInstallFormat = 2

    enum CodingKeys: String, CodingKey {
        case format, id, version, title, description, language, license, embedder, documents, passages, members, index
        case content = "content_digest"
        case rowsDigest = "rows_digest"
    }

    public init(id: String, version: CorpusVersion, title: String, description: String = "", language: String = "en",
                license: String = "", embedder: EmbedderInfo, documents: Int, passages: Int, content: SHA256Digest,
                members: [String: MemberInfo] = [:]) {
        self.format = Manifest.currentFormat
        self.id = id
        self.version = version
        self.title = title
        self.description = description
        self.language = language
        self.license = license
        self.embedder = embedder
        self.documents = documents
        self.passages = passages
        self.content = content
        self.members = members
    }

    public func canonicalBytes() throws -> Data { try CanonicalJSON.encode(self) }

    /// Decodes and checks the fields that later code relies on for safety.
    public static func decode(_ data: Data) throws -> Manifest {
        let m = try CanonicalJSON.decode(Manifest.self, from: data, what: "corpus manifest")
        guard m.format == currentFormat || m.format == indexAtInstallFormat else {
            throw FormatError.unsupported(what: "corpus manifest", reason: "format \(m.format); this build reads formats \(currentFormat) and \(indexAtInstallFormat)")
        }
        guard (m.format == indexAtInstallFormat) == (m.index != nil), m.index == nil || m.rowsDigest != nil else {
            throw FormatError.malformed(what: "corpus manifest", reason: "format \(m.format) with index \(m.index?.rawValue ?? "in the pack")")
        }
        try Identifier.validate(m.id, what: "corpus id")
        guard m.embedder.dimension > 0, m.embedder.dimension <= 4096, ["int8", "f32"].contains(m.embedder.encoding) else {
            throw FormatError.malformed(what: "corpus manifest", reason: "embedder dimension or encoding out of range")
        }
        for (name, info) in m.members {
            guard BundleLayout.payloadMembers.contains(name) else { throw FormatError.memberNotAllowed(name) }
            guard info.size >= 0 else {
                throw FormatError.malformed(what: "corpus manifest", reason: "bad size for \(name)")
            }
        }
        return m
    }

    /// The trusted comment signed with the manifest, so `minisign -V` shows what was verified.
    public var trustedComment: String { "corpus:\(id) version:\(version) content:\(content.prefix(16))" }
}

/// Member names of a bundle, in the order the writer stores them.
public enum BundleLayout {
    public static let manifest = "corpus.json"
    public static let signature = "corpus.json.minisig"
    public static let pack = "pack.sqlite"
    public static let vectors = "vectors.bin"
    public static let payloadMembers: [String] = [pack, vectors]
    public static let allMembers: [String] = [manifest, signature, pack, vectors]
}
