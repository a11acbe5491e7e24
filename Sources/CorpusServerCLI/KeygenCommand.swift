import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpusd keygen --out DIR [--name NAME] [--force]`
enum KeygenCommand: ServerCommand {
    static let spec = CommandSpec(["keygen"], "--out DIR [--name NAME]", "write a minisign-compatible key pair DIR/NAME.key and DIR/NAME.pub",
                                  options: [.value("--out", "folder for the key pair"), .value("--name", "file name stem (default: corpus)"),
                                            .flag("--force", "overwrite an existing key pair")],
                                  required: ["--out"])

    static func run(_ cmd: ParsedCommand, _ console: Console) throws {
        let dir = cmd.value("--out")!
        let name = cmd.value("--name") ?? "corpus"
        try Identifier.validate(name, what: "key name")
        let keyPath = "\(dir)/\(name).key", pubPath = "\(dir)/\(name).pub"
        if !cmd.has("--force") && (FileManager.default.fileExists(atPath: keyPath) || FileManager.default.fileExists(atPath: pubPath)) {
            throw ErrorReport(code: "exists", message: "\(keyPath) already exists; refusing to overwrite a signing key",
                              hint: "choose another --name or --out, or pass --force", exit: .localIO)
        }
        let key = try SecretKey.generate()
        try FileIO.createDirectory(dir)
        try FileIO.writeAtomically(Data(key.fileText.utf8), to: keyPath, mode: 0o600)
        try FileIO.writeAtomically(Data(key.publicKey.fileText.utf8), to: pubPath, mode: 0o644)
        if console.json {
            console.emit(["key": keyPath, "public_key": pubPath, "key_id": key.keyID.description])
        } else {
            console.info("wrote \(keyPath) (secret, mode 600) and \(pubPath)")
            console.info("key id \(key.keyID); verify with: minisign -Vm FILE -p \(pubPath)")
        }
    }
}
