/// A command line the parser (or a command reading its values) refuses: exit code 2.
public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    case noCommand
    case unknownCommand(String)
    case unknownOption(String, command: String)
    case missingValue(String)
    /// `--flag=value` for an option that takes no value (`--prune=no` must not prune).
    case valueForFlag(String, given: String, command: String)
    case repeated(String)
    case wrongArgumentCount(command: String, usage: String)
    case missingRequired(String, command: String)
    case invalidValue(option: String, value: String, expected: String)
    /// A value that is wrong in the way `problem` says (`"tides@" has no VERSION after the @`).
    case badValue(option: String, value: String, problem: String)

    public var description: String {
        switch self {
        case .noCommand: return "no command given"
        case let .unknownCommand(c): return "unknown command \(c.debugDescription)"
        case let .unknownOption(o, c): return "\(Self.prefix(c))unknown option \(o)"
        case let .missingValue(o): return "option \(o) needs a value"
        case let .valueForFlag(o, given, c): return "\(Self.prefix(c))option \(o) takes no value, but was given one: \(given)"
        case let .repeated(o): return "option \(o) given more than once"
        case let .wrongArgumentCount(c, u): return "wrong number of arguments; usage: \(c) \(u)"
        case let .missingRequired(o, c): return "\(c) needs \(o)"
        case let .invalidValue(o, v, e): return "\(o) \(v.debugDescription) is not \(e)"
        case let .badValue(o, v, p): return "\(o) \(v.debugDescription) \(p)"
        }
    }

    private static func prefix(_ command: String) -> String { command.isEmpty ? "" : "\(command): " }
}
