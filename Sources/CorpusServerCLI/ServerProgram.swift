import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpusd`: the publisher and host side.
public enum ServerProgram {
    static let parser = ArgumentParser(
        commands: [
            CommandSpec(["keygen"], "--out DIR [--name NAME]", "write a minisign-compatible key pair DIR/NAME.key and DIR/NAME.pub",
                        options: [.value("--out", "folder for the key pair"), .value("--name", "file name stem (default: corpus)"),
                                  .flag("--force", "overwrite an existing key pair")],
                        required: ["--out"]),
            BuildCommand.spec,
            PublishCommand.spec,
            RotateKeyCommand.spec,
            ServeCommand.spec,
            MirrorCommand.spec,
            TokenCommand.issueSpec,
        ],
        globals: [.flag("--help", short: "-h", "show this help"), .flag("--json", "print results as JSON"),
                  .flag("--quiet", short: "-q", "print only errors")])

    static let program = CommandLineProgram(name: "corpusd", parser: parser, report: ServerErrors.report)

    /// Runs one `corpusd` command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        await program.main(arguments) { cmd, console in
            switch cmd.spec.path {
            case ["keygen"]: try keygen(cmd, console)
            case ["build"]: try BuildCommand.run(cmd, console)
            case ["publish"]: try PublishCommand.run(cmd, console)
            case ["rotate-key"]: try RotateKeyCommand.run(cmd, console)
            case ["serve"]: try await ServeCommand.run(cmd, console)
            case ["mirror"]: try await MirrorCommand.run(cmd, console)
            case ["token", "issue"]: try TokenCommand.issue(cmd, console)
            default: throw UsageError.unknownCommand(cmd.spec.name)
            }
            return 0
        }
    }

    static func keygen(_ cmd: ParsedCommand, _ console: Console) throws {
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
