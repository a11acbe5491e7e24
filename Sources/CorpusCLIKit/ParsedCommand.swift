/// A command line the parser accepted: the command's row, its positionals, and the options given,
/// read back by the same `Option` values the table declares.
public struct ParsedCommand: Sendable {
    public let spec: CommandSpec
    public let positionals: [String]
    let values: [String: [String]]
    let flags: Set<String>

    init(spec: CommandSpec, positionals: [String], values: [String: [String]], flags: Set<String>) {
        self.spec = spec
        self.positionals = positionals
        self.values = values
        self.flags = flags
    }

    /// The value of an option that takes one (the last, for a repeatable one), nil when not given.
    public func value(_ option: Option) -> String? { values[option.name]?.last }

    /// Every value of a repeatable option, in command-line order.
    public func values(_ option: Option) -> [String] { values[option.name] ?? [] }

    /// True when the option was given (a flag, or an option with a value).
    public func has(_ option: Option) -> Bool { flags.contains(option.name) || values[option.name] != nil }

    /// The value of an option known to be there: one the command's row lists as required (the
    /// parser refused the command line without it), or one the caller has just seen given.
    public func required(_ option: Option) -> String {
        guard let value = value(option) else {
            preconditionFailure("\(option.name) was not given to \(spec.name)")
        }
        return value
    }
}
