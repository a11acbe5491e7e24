import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd rotate-key --out PUBLIC_DIR --key CURRENT.key --new-key NEW.key`
struct RotateKeyCommand: ServerCommand {
    static let out = Option.path("--out", "PUBLIC_DIR", "the published tree").required()
    static let key = Option.path("--key", "CURRENT.key", "the current root secret key").required()
    static let newKey = Option.path("--new-key", "NEW.key", "the secret key to rotate to (make one with corpusd keygen)").required()
    static let spec = CommandSpec(["rotate-key"], "add root key N+1 (NEW.key) to a single-key tree, signed by the current root key; then publish with --key NEW.key",
                                  options: [out, key, newKey])

    let context: ServerContext

    func run() throws -> Int32 {
        let current = try SecretKey(contentsOf: cmd.required(Self.key))
        let newKeyPath = try cmd.required(Self.newKey)
        let new = try SecretKey(contentsOf: newKeyPath)
        let out = try cmd.required(Self.out)
        let doc = try RootKeyChain.rotate(tree: out, currentKey: current, newKey: new)
        if console.json {
            console.emit(Rotated(rootVersion: doc.version, keyID: doc.keyID, signedBy: current.keyID.description))
        } else {
            console.info("wrote \(out)/keys/root-\(doc.version).json (key \(doc.keyID)), signed by \(current.keyID)")
            console.info("next: corpusd publish CATALOG_DIR \(Self.out.name) \(out) \(Self.key.name) \(newKeyPath)")
        }
        return 0
    }

    /// `{"root_version", "key_id", "signed_by"}`
    struct Rotated: Encodable {
        let rootVersion: Int
        let keyID: String
        let signedBy: String

        enum CodingKeys: String, CodingKey {
            case rootVersion = "root_version"
            case keyID = "key_id"
            case signedBy = "signed_by"
        }
    }
}
