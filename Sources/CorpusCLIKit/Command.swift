/// One command of an executable: its row of the command table, and what it does with the
/// context its executable builds for it. `corpus` and `corpusd` commands have this one shape; each
/// executable's `Context` carries what its commands share (for `corpus`, the home and a client).
public protocol Command: Sendable {
    associatedtype Context: CommandContext
    /// The command's row: its words, positionals and option declarations.
    static var spec: CommandSpec { get }

    init(context: Context)
    var context: Context { get }
    /// Prints the result and returns the exit code (that of the first refusal for a command
    /// given several ids); throws a refusal of the whole command.
    func run() async throws -> Int32
}

/// What every command's context holds: the command line the parser accepted and the console.
public protocol CommandContext: Sendable {
    var cmd: ParsedCommand { get }
    var console: Console { get }
}

extension Command {
    public var cmd: ParsedCommand { context.cmd }
    public var console: Console { context.console }
}
