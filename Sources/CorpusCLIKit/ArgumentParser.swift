/// The one command-line parser both executables use: commands and options are tables,
/// parsing is a single pass, and every mistake becomes a `UsageError` (exit code 2).
///
/// Global options may come before or after the command; `--` ends the options (what follows is
/// positional); a long option takes its value as the next argument or after `=`; a flag given
/// `=value` is refused; a word that is a whole number (`-5`) is a positional, not an option.
/// Each value is checked against what its option's declaration accepts (`OptionValue`), and each
/// option declared required must be given.
public struct ArgumentParser: Sendable {
    public let commands: [CommandSpec]
    public let globals: [Option]

    public init(commands: [CommandSpec], globals: [Option]) {
        self.commands = commands
        self.globals = globals
    }

    /// What has been read so far.
    private struct State {
        var words: [String] = []
        var spec: CommandSpec?
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        /// Each value with the declaration it was given for, in command-line order.
        var given: [(option: Option, value: String)] = []
        var flags = Set<String>()
        var onlyPositionals = false
    }

    /// Parses `args` (without the program name).
    public func parse(_ args: [String]) throws -> ParsedCommand {
        var state = State()
        var rest = args[...]
        while let arg = rest.popFirst() {
            if !state.onlyPositionals && arg == "--" {
                state.onlyPositionals = true
            } else if !state.onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && Int(arg) == nil {
                try readOption(arg, rest: &rest, into: &state)
            } else if state.spec == nil {
                try readCommandWord(arg, into: &state)
            } else {
                state.positionals.append(arg)
            }
        }
        return try finish(state)
    }

    /// `--name`, `--name=value` or `-k`, with its value taken from `rest` when it needs one.
    private func readOption(_ arg: String, rest: inout ArraySlice<String>, into state: inout State) throws {
        let inline = arg.hasPrefix("--") && arg.contains("=")
        let name = inline ? String(arg.prefix(while: { $0 != "=" })) : arg
        let command = state.spec?.name ?? ""
        guard let option = (globals + (state.spec?.options ?? [])).first(where: { $0.name == name || $0.short == name }) else {
            throw UsageError.unknownOption(arg, command: command)
        }
        guard option.takesValue else {
            if inline { throw UsageError.valueForFlag(option.name, given: arg, command: command) }
            state.flags.insert(option.name)
            return
        }
        guard let value = inline ? String(arg.drop(while: { $0 != "=" }).dropFirst()) : rest.popFirst() else {
            throw UsageError.missingValue(option.name)
        }
        if state.values[option.name] != nil && !option.isRepeatable { throw UsageError.repeated(option.name) }
        state.values[option.name, default: []].append(value)
        state.given.append((option, value))
    }

    /// A word before the command is known: the next word of a command's name.
    private func readCommandWord(_ word: String, into state: inout State) throws {
        state.words.append(word)
        if let match = commands.first(where: { $0.path == state.words }) {
            state.spec = match
        } else if !commands.contains(where: { $0.path.starts(with: state.words) }) {
            throw UsageError.unknownCommand(state.words.joined(separator: " "))
        }
    }

    private func finish(_ state: State) throws -> ParsedCommand {
        guard let spec = state.spec else {
            if state.words.isEmpty { throw UsageError.noCommand }
            throw UsageError.unknownCommand(state.words.joined(separator: " "))
        }
        let parsed = ParsedCommand(spec: spec, positionals: state.positionals, values: state.values, flags: state.flags)
        // `COMMAND --help` asks for the command's usage; nothing else needs to be right.
        if parsed.has(.help) { return parsed }
        for (option, value) in state.given where !option.accepts.accepts(value) {
            throw UsageError.invalidValue(option: option.name, value: value, expected: option.accepts.expected)
        }
        guard spec.positionals.count.contains(state.positionals.count) else {
            throw UsageError.wrongArgumentCount(command: spec.name, usage: spec.usage)
        }
        for option in spec.options where option.isRequired && !parsed.has(option) {
            throw UsageError.missingRequired(option.name, command: spec.name)
        }
        return parsed
    }
}
