import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpusd keygen --out DIR [--name NAME] [--force]`
struct KeygenCommand: ServerCommand {
    static let out = Option.path("--out", "DIR", "folder for the key pair").required()
    static let name = Option.text("--name", "NAME", "file name stem (default: corpus)")
    static let force = Option.flag("--force", "overwrite an existing key pair")
    static let spec = CommandSpec(["keygen"], "write a minisign-compatible key pair DIR/NAME.key and DIR/NAME.pub",
                                  options: [out, name, force])

    let context: ServerContext

    func run() throws -> Int32 {
        let dir = try cmd.required(Self.out)
        let name = cmd.value(Self.name) ?? "corpus"
        try Identifier.validate(name, what: "key name")
        let keyPath = "\(dir)/\(name).key", pubPath = "\(dir)/\(name).pub"
        if !cmd.has(Self.force) && (FileManager.default.fileExists(atPath: keyPath) || FileManager.default.fileExists(atPath: pubPath)) {
            throw ErrorReport(code: "exists", message: "\(keyPath) already exists; refusing to overwrite a signing key",
                              hint: "choose another \(Self.name.name) or \(Self.out.name), or pass \(Self.force.name)", kind: .localIO)
        }
        let key = try SecretKey.generate()
        try FileIO.createDirectory(dir)
        try FileIO.writeAtomically(Data(key.fileText.utf8), to: keyPath, mode: 0o600)
        try FileIO.writeAtomically(Data(key.publicKey.fileText.utf8), to: pubPath, mode: 0o644)
        if console.json {
            console.emit(Written(key: keyPath, publicKey: pubPath, keyID: key.keyID.description))
        } else {
            console.info("wrote \(keyPath) (secret, mode 600) and \(pubPath)")
            console.info("key id \(key.keyID); verify with: minisign -Vm FILE -p \(pubPath)")
        }
        return 0
    }

    /// `{"key", "public_key", "key_id"}`
    struct Written: Encodable {
        let key: String
        let publicKey: String
        let keyID: String

        enum CodingKeys: String, CodingKey {
            case key
            case publicKey = "public_key"
            case keyID = "key_id"
        }
    }
}
