import CorpusFormat
import Foundation

/// Re-verifies an installed version folder against its own signed manifest.
enum InstalledVerifier {
    static func verify(directory: String, trustedKeys: [PublicKey]) throws {
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
        for (name, info) in manifest.members.sorted(by: { $0.key < $1.key }) {
            let (actual, size) = try io { try SHA256.digest(fileAt: "\(directory)/\(name)") }
            guard size == info.size else { throw SyncError.sizeMismatch(file: name, expected: info.size, actual: size) }
            guard actual == info.sha256 else { throw SyncError.hashMismatch(file: name, expected: info.sha256.hex, actual: actual.hex) }
        }
    }
}
