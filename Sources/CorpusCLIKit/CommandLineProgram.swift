import CorpusHTTP

/// What both executables do with a command line: help, parse, run the command, and turn whatever
/// it throws into the one refusal line (or JSON object) and its exit code.
public struct CommandLineProgram: Sendable {
    public let name: String
    public let parser: ArgumentParser
    /// What the man page says beyond the table (`--manpage`).
    public let manual: ManualPage
    /// The executable's map from errors to reports (`ErrorReport.from` with its libraries' domain).
    public let report: @Sendable (Error) -> ErrorReport

    public init(name: String, parser: ArgumentParser, manual: ManualPage, report: @escaping @Sendable (Error) -> ErrorReport) {
        self.name = name
        self.parser = parser
        self.manual = manual
        self.report = report
    }

    /// The date of this release, printed in the man page's header (a fixed date, so a release
    /// renders the same page whenever it is built).
    public static let releaseDate = "2026-12-03"

    /// `corpus 0.1.0`: what `--version` prints.
    public var versionLine: String { "\(name) \(ProductVersion.current)" }

    /// The words that are about the program rather than a command, answered before parsing:
    /// `--version`, and the generators `make install` and `make deb` run (`--manpage`,
    /// `--completion bash|zsh|fish`), which docs/operations.md names but `--help` does not.
    func aboutProgram(_ args: [String]) -> String? {
        switch args {
        case ["--version"]: return versionLine + "\n"
        case ["--manpage"]: return manual.render(program: name, parser: parser, version: ProductVersion.current, date: Self.releaseDate)
        case let words where words.count == 2 && words[0] == "--completion":
            return ShellCompletion.Shell(rawValue: words[1]).map {
                ShellCompletion.script($0, program: name, parser: parser, version: ProductVersion.current)
            }
        default: return nil
        }
    }

    /// Runs one command line (`arguments` with the program name first) and returns the exit code.
    public func main(_ arguments: [String], run: (ParsedCommand, Console) async throws -> Int32) async -> Int32 {
        let args = Array(arguments.dropFirst())
        // Until the command line parses, the words decide how a refusal is printed.
        var console = Console(json: args.contains(Option.json.name),
                              quiet: args.contains(Option.quiet.name) || args.contains(Option.quiet.short ?? ""))
        if let text = aboutProgram(args) {
            console.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
            return 0
        }
        if args.isEmpty || args == [Option.help.name] || args == [Option.help.short] {
            console.out(parser.help(program: name))
            return args.isEmpty ? FailureKind.usage.exitCode.rawValue : 0
        }
        do {
            let cmd = try parser.parse(args)
            console = Console(json: cmd.has(.json), quiet: cmd.has(.quiet))
            if cmd.has(.help) {
                console.out(parser.usage(of: cmd.spec, program: name))
                return 0
            }
            return try await run(cmd, console)
        } catch {
            return console.refuse(report(error))
        }
    }
}

extension Console {
    /// Prints a refusal the one way both commands do, and returns its exit code.
    public func refuse(_ r: ErrorReport) -> Int32 {
        if json {
            emit(RefusalOutput(r))
        } else {
            err("error: \(r.message)" + (r.hint.isEmpty ? "" : " (\(r.hint))"))
        }
        return r.exit.rawValue
    }
}
