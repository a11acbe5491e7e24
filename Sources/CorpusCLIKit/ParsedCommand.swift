import Foundation
import CorpusFormat

/// A command line the parser accepted: the command's row, its positionals, and the options given,
/// read back by the same `Option` values the table declares, typed as they declare: every value
/// here was checked against its option's `OptionValue` before the command ran.
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

    /// The value of an option that takes one (the last, for a repeatable one), as given; nil
    /// when not given.
    public func value(_ option: Option) -> String? { values[option.name]?.last }

    /// Every value of a repeatable option, in command-line order.
    public func values(_ option: Option) -> [String] { values[option.name] ?? [] }

    /// True when the option was given (a flag, or an option with a value).
    public func has(_ option: Option) -> Bool { flags.contains(option.name) || values[option.name] != nil }

    /// The value of an option the command needs. The parser refused the command line without
    /// the options declared `required()`; one the command reads here without having declared it
    /// so is the same usage error, never a crash.
    public func required(_ option: Option) throws(UsageError) -> String {
        guard let value = value(option) else { throw UsageError.missingRequired(option.name, command: spec.name) }
        return value
    }

    /// The value of an `.integer` option; nil when not given.
    public func int(_ option: Option) -> Int? { value(option).flatMap { Int($0) } }

    /// The value of a `.duration` option, in seconds; nil when not given.
    public func duration(_ option: Option) -> TimeInterval? { value(option).flatMap(Timestamp.duration) }

    /// The value of a `.choice` option as the case of `E` it names; nil when not given.
    public func choice<E: RawRepresentable>(_ option: Option, as type: E.Type) -> E? where E.RawValue == String {
        value(option).flatMap(E.init(rawValue:))
    }
}
