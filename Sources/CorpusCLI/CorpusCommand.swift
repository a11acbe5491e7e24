import Foundation
import CorpusFormat

/// `corpus`: the client. Commands arrive here as the client library grows.
public enum CorpusCommand {
    static let globals: [OptionSpec] = [
        .value("--home", "home folder (default: $CORPUS_HOME or $XDG_DATA_HOME/corpus)"),
        .flag("--json", "print one JSON object on stdout, progress as JSON lines on stderr"),
        .flag("--quiet", short: "-q", "print only errors"),
        .value("--token", "entitlement token (default: $CORPUS_TOKEN)"),
        .flag("--help", short: "-h", "show this help"),
    ]

    static let parser = ArgumentParser(commands: [], globals: globals)

    public static func main(_ arguments: [String]) async -> Int32 {
        let args = Array(arguments.dropFirst())
        let console = Console(json: args.contains("--json"), quiet: args.contains("--quiet") || args.contains("-q"))
        if args.isEmpty || args == ["--help"] || args == ["-h"] {
            console.out(parser.help(program: "corpus"))
            return args.isEmpty ? ExitCode.usage.rawValue : 0
        }
        do {
            let cmd = try parser.parse(args)
            throw UsageError.unknownCommand(cmd.spec.name)
        } catch {
            return Report.refusal(error, console: console)
        }
    }
}
