import Foundation

/// Reads and verifies a delta (docs/format.md "Delta") with the bundle reader's rules: the raw
/// central directory checked first, exactly the allowlisted members, libzip's consistency check,
/// every member streamed through SHA-256 against the signed `delta.json` and stopped one byte past
/// its signed size.
///
/// `document(trustedKeys:)` verifies `delta.json`; `manifest` then reads the new version's
/// manifest the delta carries, which must be the one `delta.json` names and signed by a trusted
/// key too; `changes` and `extractVectors` hand out the payload, verified.
public final class DeltaReader {
    public let path: String
    private let vetted: VettedArchive

    /// `implementation` is the zip reader (`ZipImplementation`); every caller but the tests and
    /// benchmarks that compare the two keeps the platform's.
    public init(path: String, implementation: ZipImplementation = .platformDefault) throws {
        self.path = path
        vetted = try VettedArchive(path: path, allowed: DeltaLayout.allMembers, signature: DeltaLayout.signature, implementation: implementation)
    }

    /// Opens the delta whose plaintext the encrypted payload `payload` holds, read through it
    /// chunk by chunk as `BundleReader.init(payload:)` reads a bundle: never written to a file.
    public init(payload: AgePayloadReader) throws {
        path = payload.path
        vetted = try VettedArchive(source: payload, path: payload.path, allowed: DeltaLayout.allMembers, signature: DeltaLayout.signature)
    }

    /// Reads `delta.json` and its signature and verifies them with the trusted key the signature names.
    public func document(trustedKeys: [PublicKey]) throws -> DeltaDocument {
        let (bytes, _) = try vetted.signedDocument(DeltaLayout.document, signature: DeltaLayout.signature, trustedKeys: trustedKeys,
                                                   maxBytes: BundleReader.maxManifestBytes, maxSignatureBytes: BundleReader.maxSignatureBytes)
        return try DeltaDocument.decode(bytes)
    }

    /// The new version's manifest: its bytes and signature as `document` lists them, the bytes
    /// the ones `document.to` names, the signature by a trusted key.
    public func manifest(of document: DeltaDocument, trustedKeys: [PublicKey]) throws -> (manifest: Manifest, bytes: Data, signature: Signature) {
        let bytes = try read(DeltaLayout.manifest, of: document, limit: BundleReader.maxManifestBytes)
        let signatureBytes = try read(DeltaLayout.manifestSignature, of: document, limit: BundleReader.maxSignatureBytes)
        guard SHA256.digest(bytes) == document.to.manifest else {
            throw FormatError.hashMismatch(member: DeltaLayout.manifest, expected: document.to.manifest.hex, actual: SHA256.digest(bytes).hex)
        }
        let signature = try VettedArchive.verifySignature(signatureBytes, of: bytes, name: DeltaLayout.manifest,
                                                          signatureName: DeltaLayout.manifestSignature, trustedKeys: trustedKeys)
        let manifest = try Manifest.decode(bytes)
        guard manifest.id == document.id, manifest.version == document.to.version, manifest.content == document.to.content else {
            throw FormatError.malformed(what: "delta document", reason: "it names \(document.id) \(document.to.version), its manifest is \(manifest.id) \(manifest.version)")
        }
        return (manifest, bytes, signature)
    }

    /// The `changes.json` bytes, verified against `document`.
    public func changes(of document: DeltaDocument) throws -> Data {
        try read(DeltaLayout.changes, of: document, limit: Int64.max)
    }

    /// Writes the delta's `vectors.bin` (the added rows' vectors) to a new file at `path`, verified
    /// against `document`; a partial file is removed when this throws.
    public func extractVectors(of document: DeltaDocument, to path: String) throws {
        var done = false
        defer { if !done { FileIO.remove(path) } }
        try FileIO.writeNew(path) { file in
            try vetted.stream(DeltaLayout.vectors, declared: document.members[DeltaLayout.vectors]!, progress: nil, sink: file.write)
        }
        done = true
    }

    /// One payload member whole, checked against its signed hash and size (and at most `limit` bytes).
    private func read(_ name: String, of document: DeltaDocument, limit: Int64) throws -> Data {
        let declared = document.members[name]!
        if declared.size > limit { throw FormatError.sizeExceeded(member: name, limit: limit) }
        var out = Data(capacity: Int(declared.size))
        try vetted.stream(name, declared: declared, progress: nil) { out.append(contentsOf: $0) }
        return out
    }
}

@available(*, unavailable) extension DeltaReader: Sendable {}
