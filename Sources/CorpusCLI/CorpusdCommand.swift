import Foundation
import CorpusFormat

/// `corpusd`: the publisher and host side.
public enum CorpusdCommand {
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

    /// Runs one command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        let args = Array(arguments.dropFirst())
        let console = Console(json: args.contains("--json"), quiet: args.contains("--quiet") || args.contains("-q"))
        if args.isEmpty || args == ["--help"] || args == ["-h"] {
            console.out(parser.help(program: "corpusd"))
            return args.isEmpty ? ExitCode.usage.rawValue : 0
        }
        do {
            let cmd = try parser.parse(args)
            if cmd.has("--help") {
                console.out(parser.usage(of: cmd.spec, program: "corpusd"))
                return 0
            }
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
        } catch {
            return Report.refusal(error, console: console)
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

/// Prints a refusal the one way both commands do, and returns its exit code.
enum Report {
    static func refusal(_ error: Error, console: Console) -> Int32 {
        let r = ErrorReport.from(error)
        if console.json {
            console.emit(["error": ["code": r.code, "message": r.message, "hint": r.hint]])
        } else {
            console.err("error: \(r.message)" + (r.hint.isEmpty ? "" : " (\(r.hint))"))
        }
        return r.exit.rawValue
    }
}
