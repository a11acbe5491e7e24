import Foundation

/// An entitled bundle (or delta) encrypted once as an age payload (C2SP age, "Payload": a 16-byte
/// nonce, then 64 KiB ChaCha20-Poly1305 STREAM chunks), published as `payloads/<sha256>.age` and
/// carried by any mirror, bucket or cache like a free bundle. The payload does not depend on any
/// header, so the same object serves every device; a device gets the file key in an age header
/// wrapped to its own X25519 recipient (`KeyRelease`). docs/format.md "Encrypted entitled corpora".
public enum EncryptedPayload {
    /// Checks a catalog's payload reference: content-addressed under `payloads/`, not empty.
    static func validate(_ ref: BundleRef, of what: String) throws {
        guard ref.path == TreeLayout.payloadPath(sha256: ref.digest.hex), ref.size >= AgeSTREAM.nonceSize + ChaCha20Poly1305.tagSize else {
            throw FormatError.malformed(what: "catalog", reason: "the payload of \(what) is not payloads/<sha256>.age of a possible size")
        }
    }

    /// A gate is an http or https base URL without credentials, query or fragment.
    public static func checkGate(_ url: String) throws { try validateGate(url) }

    static func validateGate(_ url: String) throws {
        guard let c = URLComponents(string: url), ["http", "https"].contains(c.scheme?.lowercased() ?? ""), c.host?.isEmpty == false,
              c.user == nil, c.password == nil, c.query == nil, c.fragment == nil,
              url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw FormatError.malformed(what: "catalog", reason: "the gate is not an http(s) base URL")
        }
    }

    /// Encrypts the file at `plaintext` into a new payload file at `output` under `fileKey`
    /// (fresh nonce), hashing the payload as it is written; returns its content-addressed reference.
    public static func encrypt(fileAt plaintext: String, to output: String, fileKey: AgeFileKey) throws -> BundleRef {
        let encryptor = try AgePayloadEncryptor(fileKey: fileKey)
        let digest = Digest(.sha256)
        var size: Int64 = 0
        try FileIO.writeNew(output) { file in
            let sink: (UnsafeRawBufferPointer) throws -> Void = { bytes in
                digest.update(bytes)
                size += Int64(bytes.count)
                try file.write(bytes)
            }
            try FileHandleReader(path: plaintext).forEachChunk { try encryptor.update($0, sink: sink) }
            try encryptor.finish(sink: sink)
        }
        let sha = SHA256Digest(bytes: digest.finalize())
        return BundleRef(path: TreeLayout.payloadPath(sha256: sha.hex), digest: sha, size: size)
    }
}
