import Foundation
import CorpusCLIKit
import CorpusFormat

/// What every `corpusd` command works with: the parsed command line, the console, and the
/// environment (object-storage credentials, CORPUS_TOKEN, the retry scale of tests).
struct ServerContext: CommandContext {
    let cmd: ParsedCommand
    let console: Console
    let environment: CommandEnvironment
}

/// One `corpusd` command: the kit's `Command` over a `ServerContext`, the shape of `corpus`'s.
protocol ServerCommand: Command where Context == ServerContext {}

/// `corpusd`: the publisher and host side. The table below is the whole command line; each
/// command is a type of its own file over the publisher, server and mirror libraries.
public enum ServerProgram {
    /// The command table, in the order `--help` lists them.
    static let commands: [any ServerCommand.Type] = [
        KeygenCommand.self, BuildCommand.self, PublishCommand.self, TimestampCommand.self, RotateKeyCommand.self,
        RootDraftCommand.self, RootSignCommand.self, RootPublishCommand.self,
        ServeCommand.self, MirrorCommand.self, WitnessCommand.self, CosignCommand.self, UploadCommand.self, TokenCommand.self, EmbedCommand.self,
    ]

    static let parser = ArgumentParser(
        commands: commands.map { $0.spec },
        globals: [.help, .json, .quiet])

    static let program = CommandLineProgram(name: "corpusd", parser: parser, report: ServerErrors.report)

    /// Runs one `corpusd` command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        await program.main(arguments) { cmd, console in
            guard let command = commands.first(where: { $0.spec.path == cmd.spec.path }) else {
                throw UsageError.unknownCommand(cmd.spec.name)
            }
            let context = ServerContext(cmd: cmd, console: console, environment: CommandEnvironment(ProcessInfo.processInfo.environment))
            return try await command.init(context: context).run()
        }
    }
}
