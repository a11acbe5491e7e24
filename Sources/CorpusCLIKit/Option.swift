/// One option of a command line, declared once with everything about it: its names, whether it
/// takes a value and how many times, what the value must be (`OptionValue`), whether the command
/// needs it, and its help. The parser checks a command line against the declarations, usage and
/// `--help` are printed from them, and commands read values back through them
/// (`cmd.int(SearchCommand.k)`), never through a `"-k"` spelled again where it is used.
///
/// Two options are the same key when their names are: a command may declare `--trust` with its
/// own help and kind, and it is still `--trust` on the command line.
public struct Option: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Takes no value: present or not. `--flag=value` is a usage error.
        case flag
        /// Takes one value (`--home DIR` or `--home=DIR`), at most once.
        case value(placeholder: String)
        /// Takes a value each time it is given (`--mirror URL --mirror URL`).
        case repeatable(placeholder: String)
    }

    /// The long name with its dashes (`--home`), or a one-letter name (`-k`).
    public let name: String
    /// A one-letter alias (`-q` for `--quiet`).
    public let short: String?
    public let kind: Kind
    /// What each value must be (`.text` for a flag, which has none).
    public let accepts: OptionValue
    /// True when the command line must give it: the parser refuses one without it
    /// (`missingRequired`), and `ParsedCommand.required` reads it.
    public let isRequired: Bool
    public let help: String

    public init(name: String, short: String? = nil, kind: Kind, accepts: OptionValue = .text, isRequired: Bool = false, help: String) {
        self.name = name
        self.short = short
        self.kind = kind
        self.accepts = accepts
        self.isRequired = isRequired && kind != .flag
        self.help = help
    }

    public static func flag(_ name: String, short: String? = nil, _ help: String) -> Option {
        Option(name: name, short: short, kind: .flag, help: help)
    }

    /// Any text (an id, a name, a comma-separated list): the command checks what it needs.
    public static func text(_ name: String, _ placeholder: String, short: String? = nil, _ help: String) -> Option {
        Option(name: name, short: short, kind: .value(placeholder: placeholder), help: help)
    }

    /// A file or folder (`--out DIR`): not empty.
    public static func path(_ name: String, _ placeholder: String, _ help: String) -> Option {
        Option(name: name, kind: .value(placeholder: placeholder), accepts: .path, help: help)
    }

    /// A whole number in `range`: `-k N (1-1000)`. `counting` names what it counts, for the refusal.
    public static func integer(_ name: String, _ placeholder: String, in range: ClosedRange<Int>, counting: String? = nil, _ help: String) -> Option {
        Option(name: name, kind: .value(placeholder: placeholder), accepts: .integer(range, counting: counting), help: help)
    }

    /// One of `words`: `--index bundle|install`.
    public static func choice(_ name: String, _ words: [String], _ help: String) -> Option {
        Option(name: name, kind: .value(placeholder: words.joined(separator: "|")), accepts: .choice(words), help: help)
    }

    /// One of the cases of `E`, by raw value (`--access free|entitled`); read back with `cmd.choice(_:as:)`.
    public static func choice<E: CaseIterable & RawRepresentable>(_ name: String, _ type: E.Type, _ help: String) -> Option where E.RawValue == String {
        choice(name, E.allCases.map(\.rawValue), help)
    }

    /// A duration within `bounds`: `--expires DURATION (1h to 366d)`.
    public static func duration(_ name: String, _ bounds: DurationOption, _ help: String) -> Option {
        Option(name: name, kind: .value(placeholder: "DURATION"), accepts: .duration(bounds), help: help)
    }

    /// An http or https URL: `--public-url URL (http or https)`.
    public static func url(_ name: String, _ help: String) -> Option {
        Option(name: name, kind: .value(placeholder: "URL"), accepts: .url, help: help)
    }

    /// Takes a value each time it is given, each of the kind `accepts`.
    public static func repeatable(_ name: String, _ placeholder: String, accepts: OptionValue = .text, _ help: String) -> Option {
        Option(name: name, kind: .repeatable(placeholder: placeholder), accepts: accepts, help: help)
    }

    /// The same option, needed by the command that lists it (a shared declaration, such as
    /// `--to`, is required by one command and optional in another).
    public func required() -> Option {
        Option(name: name, short: short, kind: kind, accepts: accepts, isRequired: true, help: help)
    }

    public var takesValue: Bool { kind != .flag }
    public var isRepeatable: Bool { if case .repeatable = kind { true } else { false } }

    /// What usage text shows for the value (`DIR`), nil for a flag.
    public var placeholder: String? {
        switch kind {
        case .flag: nil
        case let .value(p), let .repeatable(p): p
        }
    }

    /// `--home DIR`, `--prune`: how the option is written in a usage line.
    public var synopsis: String { placeholder.map { "\(name) \($0)" } ?? name }

    public static func == (a: Option, b: Option) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// The options every command of both executables accepts.
extension Option {
    public static let json = Option.flag("--json", "print one JSON object on stdout, progress as JSON lines on stderr")
    public static let quiet = Option.flag("--quiet", short: "-q", "print only errors")
    public static let help = Option.flag("--help", short: "-h", "show this help")
}
