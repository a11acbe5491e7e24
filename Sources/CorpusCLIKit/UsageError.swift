import CorpusFormat

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
        case let .invalidValue(o, v, e): return "\(o) \(Self.shown(v)) is not \(e)"
        case let .badValue(o, v, p): return "\(o) \(Self.shown(v)) \(p)"
        }
    }

    private static func prefix(_ command: String) -> String { command.isEmpty ? "" : "\(command): " }

    /// A refused value as a refusal line shows it: quoted and escaped (`debugDescription`, so no
    /// control character reaches the terminal), without what may be a credential. A command line
    /// stays in shell history and `ps`, but the refusal goes to logs and bug reports too: the
    /// user part of a URL (`http://AK:SECRET@host`, `AK:SECRET@host`) is left out
    /// (`URLUserInfo.redacted`), and a value shaped like a token (base64url parts joined by
    /// dots, as a JWS is) is not shown at all.
    static func shown(_ value: String) -> String {
        if looksLikeToken(value) { return "(a value shaped like a token, not shown)" }
        let redacted = URLUserInfo.redacted(value)
        // `alice@example.com` or `tides@2` carry no password: only a scheme's authority or a
        // USER:PASSWORD part is a credential.
        let credential = redacted != value && (value.contains("://") || value.prefix(while: { $0 != "@" }).contains(":"))
        return (credential ? redacted : value).debugDescription
    }

    /// Three or more base64url parts of 8 or more characters joined by dots: a signed token's
    /// shape (a JWS header alone is 20), not a version's or a dotted name's.
    private static func looksLikeToken(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { $0.utf8.count >= 8 } && TokenSyntax.problem(value) == nil
    }
}
