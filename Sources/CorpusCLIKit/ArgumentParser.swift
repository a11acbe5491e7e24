/// The one command-line parser both executables use: commands and options are tables,
/// parsing is a single pass, and every mistake becomes a `UsageError` (exit code 2).
public struct OptionSpec: Sendable {
    public let name: String          // "--home"
    public let short: String?        // "-k"
    public let takesValue: Bool
    public let repeatable: Bool
    public let help: String

    public static func flag(_ name: String, short: String? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, takesValue: false, repeatable: false, help: help)
    }
    public static func value(_ name: String, short: String? = nil, repeatable: Bool = false, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, takesValue: true, repeatable: repeatable, help: help)
    }
}

public struct CommandSpec: Sendable {
    public let path: [String]               // ["remote", "add"]
    public let usage: String                // "NAME URL [--mirror URL]... --trust PUB"
    public let summary: String
    public let positionals: ClosedRange<Int>
    public let options: [OptionSpec]
    public let required: [String]

    public init(_ path: [String], _ usage: String, _ summary: String, positionals: ClosedRange<Int> = 0...0,
                options: [OptionSpec] = [], required: [String] = []) {
        self.path = path
        self.usage = usage
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.required = required
    }

    public var name: String { path.joined(separator: " ") }
}

public struct ParsedCommand: Sendable {
    public let spec: CommandSpec
    public let positionals: [String]
    public let values: [String: [String]]
    public let flags: Set<String>

    public func value(_ name: String) -> String? { values[name]?.last }
    public func values(_ name: String) -> [String] { values[name] ?? [] }
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
}

public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    case noCommand
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case missingValue(String)
    case repeated(String)
    case wrongArgumentCount(command: String, usage: String)
    case missingRequired(String, command: String)
    case invalidValue(option: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .noCommand: return "no command given"
        case let .unknownCommand(c): return "unknown command \(c.debugDescription)"
        case let .unknownOption(o, c): return "\(c.isEmpty ? "" : "\(c): ")unknown option \(o)"
        case let .missingValue(o): return "option \(o) needs a value"
        case let .repeated(o): return "option \(o) given more than once"
        case let .wrongArgumentCount(c, u): return "wrong number of arguments; usage: \(c) \(u)"
        case let .missingRequired(o, c): return "\(c) needs \(o)"
        case let .invalidValue(o, v, e): return "\(o) \(v.debugDescription) is not \(e)"
        }
    }
}

public struct ArgumentParser: Sendable {
    public let commands: [CommandSpec]
    public let globals: [OptionSpec]

    public init(commands: [CommandSpec], globals: [OptionSpec]) {
        self.commands = commands
        self.globals = globals
    }

    /// Parses `args` (without the program name). Global options may come before or after the command.
    public func parse(_ args: [String]) throws -> ParsedCommand {
        var values: [String: [String]] = [:]
        var flags = Set<String>()
        var words: [String] = []
        var rest = args[...]
        var spec: CommandSpec?
        var positionals: [String] = []
        var onlyPositionals = false

        func lookup(_ arg: String) -> (OptionSpec, String?)? {
            let (name, inline) = arg.hasPrefix("--") && arg.contains("=")
                ? (String(arg.prefix(while: { $0 != "=" })), String(arg.drop(while: { $0 != "=" }).dropFirst()))
                : (arg, nil)
            let table = globals + (spec?.options ?? [])
            guard let opt = table.first(where: { $0.name == name || $0.short == name }) else { return nil }
            return (opt, inline)
        }

        while let arg = rest.popFirst() {
            if !onlyPositionals && arg == "--" { onlyPositionals = true; continue }
            if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && !isNumber(arg) {
                guard let (opt, inline) = lookup(arg) else {
                    throw UsageError.unknownOption(arg, command: spec?.name ?? "")
                }
                if opt.takesValue {
                    guard let v = inline ?? rest.popFirst() else { throw UsageError.missingValue(opt.name) }
                    if values[opt.name] != nil && !opt.repeatable { throw UsageError.repeated(opt.name) }
                    values[opt.name, default: []].append(v)
                } else {
                    flags.insert(opt.name)
                }
                continue
            }
            if spec == nil {
                words.append(arg)
                if let match = commands.first(where: { $0.path == words }) {
                    spec = match
                } else if !commands.contains(where: { $0.path.starts(with: words) }) {
                    throw UsageError.unknownCommand(words.joined(separator: " "))
                }
                continue
            }
            positionals.append(arg)
        }
        guard let spec else {
            if words.isEmpty { throw UsageError.noCommand }
            throw UsageError.unknownCommand(words.joined(separator: " "))
        }
        // `COMMAND --help` asks for the command's usage; nothing else needs to be right.
        if flags.contains("--help") {
            return ParsedCommand(spec: spec, positionals: positionals, values: values, flags: flags)
        }
        guard spec.positionals.contains(positionals.count) else {
            throw UsageError.wrongArgumentCount(command: spec.name, usage: spec.usage)
        }
        for r in spec.required where values[r] == nil {
            throw UsageError.missingRequired(r, command: spec.name)
        }
        return ParsedCommand(spec: spec, positionals: positionals, values: values, flags: flags)
    }

    private func isNumber(_ s: String) -> Bool { Int(s) != nil }

    /// The usage of one command, with its options.
    public func usage(of spec: CommandSpec, program: String) -> String {
        var out = "usage: \(program) \(spec.name) \(spec.usage)\n    \(spec.summary)\n"
        if !spec.options.isEmpty {
            out += "\noptions:\n"
            for o in spec.options { out += "  \(o.name)\(o.takesValue ? " VALUE" : "")\(o.repeatable ? " (repeatable)" : "")  \(o.help)\n" }
        }
        return out
    }

    /// The help text: every command with its usage and summary, then the global options.
    public func help(program: String) -> String {
        var out = "usage: \(program) COMMAND [OPTIONS]\n\ncommands:\n"
        for c in commands {
            out += "  \(c.name) \(c.usage)\n      \(c.summary)\n"
        }
        if !globals.isEmpty {
            out += "\nglobal options:\n"
            for g in globals { out += "  \(g.name)\(g.takesValue ? " VALUE" : "")  \(g.help)\n" }
        }
        return out
    }
}
