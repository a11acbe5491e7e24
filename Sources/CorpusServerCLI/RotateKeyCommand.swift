import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd rotate-key --out PUBLIC_DIR --key CURRENT.key --new-key NEW.key`
enum RotateKeyCommand: ServerCommand {
    static let spec = CommandSpec(
        ["rotate-key"], "--out PUBLIC_DIR --key CURRENT.key --new-key NEW.key",
        "add root key N+1 (NEW.key) to the tree, signed by the current root key; then publish with --key NEW.key",
        options: [.value("--out", "the published tree"), .value("--key", "the current root secret key"),
                  .value("--new-key", "the secret key to rotate to (make one with corpusd keygen)")],
        required: ["--out", "--key", "--new-key"])

    static func run(_ cmd: ParsedCommand, _ console: Console) throws {
        let current = try SecretKey(contentsOf: cmd.value("--key")!)
        let new = try SecretKey(contentsOf: cmd.value("--new-key")!)
        let out = cmd.value("--out")!
        let doc = try PublisherReport.mapping { try RootKeyChain.rotate(tree: out, currentKey: current, newKey: new) }
        if console.json {
            console.emit(["root_version": doc.version, "key_id": doc.keyID, "signed_by": current.keyID.description])
        } else {
            console.info("wrote \(out)/keys/root-\(doc.version).json (key \(doc.keyID)), signed by \(current.keyID)")
            console.info("next: corpusd publish CATALOG_DIR --out \(out) --key \(cmd.value("--new-key")!)")
        }
    }
}
