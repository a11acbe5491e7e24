/// One option of a command line, as the command table declares it and the commands read it back:
/// `cmd.value(Option.home)`, not a `"--home"` string spelled again where it is used.
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
    public let help: String

    public init(name: String, short: String? = nil, kind: Kind, help: String) {
        self.name = name
        self.short = short
        self.kind = kind
        self.help = help
    }

    public static func flag(_ name: String, short: String? = nil, _ help: String) -> Option {
        Option(name: name, short: short, kind: .flag, help: help)
    }

    public static func value(_ name: String, _ placeholder: String, short: String? = nil, _ help: String) -> Option {
        Option(name: name, short: short, kind: .value(placeholder: placeholder), help: help)
    }

    public static func repeatable(_ name: String, _ placeholder: String, _ help: String) -> Option {
        Option(name: name, kind: .repeatable(placeholder: placeholder), help: help)
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
