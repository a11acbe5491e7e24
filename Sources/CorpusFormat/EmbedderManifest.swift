import Foundation

/// The signed description of an embedder model artifact (`embedder.json`, docs/format.md
/// "Embedder artifact"): which model it is and the SHA-256 and size of every model file.
///
/// The model's *digest*, which corpus manifests name in `embedder.digest`, is the SHA-256 of
/// these canonical bytes. It covers every model file through their hashes but not the zip or
/// the signature, so re-signing with a rotated key or re-zipping keeps the digest, and every
/// corpus built with the model stays valid.
public struct EmbedderManifest: Codable, Hashable, Sendable {
    public static let currentFormat = 1

    public var format: Int
    /// The embedder id corpus manifests carry, e.g. `all-MiniLM-L6-v2`.
    public var id: String
    public var dimension: Int
    /// Every member other than `embedder.json` and its signature.
    public var files: [String: MemberInfo]
    /// How the encoder pools, tokenizes and prompts; absent when that is
    /// `EncoderSettings.meanPooledUncased` (every artifact before this field existed).
    public var encoder: EncoderSettings?

    public init(id: String, dimension: Int, files: [String: MemberInfo], encoder: EncoderSettings? = nil) {
        self.format = Self.currentFormat
        self.id = id
        self.dimension = dimension
        self.files = files
        self.encoder = encoder == .meanPooledUncased ? nil : encoder
    }

    /// The settings to encode with: the signed ones, or those an artifact without them means.
    public var encoderSettings: EncoderSettings { encoder ?? .meanPooledUncased }

    public func canonicalBytes() throws -> Data { try CanonicalJSON.encode(self) }

    /// The model digest: SHA-256 (hex) of the canonical `embedder.json` bytes.
    public static func digest(of manifestBytes: Data) -> SHA256Digest { SHA256.digest(manifestBytes) }

    /// Decodes and checks the fields later code relies on: a safe id, a sane dimension, exactly the
    /// allowlisted files with well-formed hashes.
    public static func decode(_ data: Data) throws -> EmbedderManifest {
        let m = try CanonicalJSON.decode(EmbedderManifest.self, from: data, what: "embedder manifest")
        guard m.format == currentFormat else {
            throw FormatError.unsupported(what: "embedder manifest", reason: "format \(m.format); this build reads format \(currentFormat)")
        }
        try Self.validateID(m.id)
        guard m.dimension > 0, m.dimension <= 4096 else {
            throw FormatError.malformed(what: "embedder manifest", reason: "dimension \(m.dimension) out of range")
        }
        for (name, info) in m.files {
            guard EmbedderArtifactLayout.payloadMembers.contains(name) else { throw FormatError.memberNotAllowed(name) }
            guard info.size >= 0 else {
                throw FormatError.malformed(what: "embedder manifest", reason: "bad size for \(name)")
            }
        }
        try m.encoder?.validate()
        for name in EmbedderArtifactLayout.payloadMembers where m.files[name] == nil {
            throw FormatError.malformed(what: "embedder manifest", reason: "it does not list \(name)")
        }
        return m
    }

    /// Embedder ids name folders (`HOME/embedders/<id>/`), so they follow the id rules of
    /// docs/format.md except that upper-case letters are allowed (model names use them).
    public static func isValidID(_ id: String) -> Bool {
        Identifier.isValid(id.lowercased()) && id.utf8.allSatisfy { $0 < 0x80 }
    }

    public static func validateID(_ id: String) throws {
        guard isValidID(id) else {
            throw FormatError.malformed(what: "embedder id", reason: "\(String(id.prefix(80)).debugDescription) is not a valid id (1-64 of A-Z a-z 0-9 . _ -)")
        }
    }

    /// The trusted comment signed with the manifest, so `minisign -V` shows what was verified.
    public func trustedComment(digest: SHA256Digest) -> String { "embedder:\(id) dimension:\(dimension) digest:\(digest)" }
}

/// Member names of an embedder artifact (`.embedder.zip`), in the order the writer stores them.
public enum EmbedderArtifactLayout {
    public static let manifest = "embedder.json"
    public static let signature = "embedder.json.minisig"
    public static let weights = "model.safetensors"
    public static let vocabulary = "vocab.txt"
    public static let config = "config.json"
    public static let tokenizerConfig = "tokenizer_config.json"
    /// The model files: what a BERT-style sentence encoder needs, read from the model folder.
    public static let payloadMembers: [String] = [config, tokenizerConfig, vocabulary, weights]
    public static let allMembers: [String] = [manifest, signature] + payloadMembers
}

/// An embedder model a catalog offers: corpora name it by `id` and `digest` in their `embedder`.
public struct CatalogEmbedder: Codable, Hashable, Sendable {
    public var id: String
    public var dimension: Int
    /// The model digest (`EmbedderManifest.digest(of:)`), as corpus manifests record it.
    public var digest: SHA256Digest
    /// The signed artifact, `embedders/<sha256>.embedder.zip` (the hash of the zip file).
    public var artifact: BundleRef

    public init(id: String, dimension: Int, digest: SHA256Digest, artifact: BundleRef) {
        self.id = id
        self.dimension = dimension
        self.digest = digest
        self.artifact = artifact
    }

    /// Checked by `Catalog.decode`: a safe id and path (the digests were checked as they decoded).
    func validate() throws {
        try EmbedderManifest.validateID(id)
        guard TreePath.isSafe(artifact.path), artifact.size > 0, dimension > 0, dimension <= 4096 else {
            throw FormatError.malformed(what: "catalog", reason: "unsafe embedder reference for \(id)")
        }
    }
}

extension TreeLayout {
    /// `embedders/<sha256>.embedder.zip`: a content-addressed embedder artifact.
    public static func embedderPath(sha256: String) -> String { "embedders/\(sha256).embedder.zip" }
}
