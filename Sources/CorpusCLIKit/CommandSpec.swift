/// The arguments of a command that are not options: how usage shows them and how many it takes.
public struct Positionals: Sendable {
    public let usage: String
    public let count: ClosedRange<Int>
    /// What a shell offers for them (`ShellCompletion`): nothing, files, or corpus ids.
    public let completion: PositionalCompletion

    public init(usage: String, count: ClosedRange<Int>, completion: PositionalCompletion = .none) {
        self.usage = usage
        self.count = count
        self.completion = completion
    }

    /// The same positionals, completed by a shell with `completion`.
    public func completing(_ completion: PositionalCompletion) -> Positionals {
        Positionals(usage: usage, count: count, completion: completion)
    }

    public static let none = Positionals(usage: "", count: 0...0)

    /// Exactly these, in order: `NAME URL`.
    public static func exactly(_ names: String...) -> Positionals {
        Positionals(usage: names.joined(separator: " "), count: names.count...names.count)
    }

    /// One or none: `[ID]`.
    public static func optional(_ name: String) -> Positionals {
        Positionals(usage: "[\(name)]", count: 0...1)
    }

    /// One or more: `ID...`.
    public static func oneOrMore(_ name: String, max: Int = 100) -> Positionals {
        Positionals(usage: "\(name)...", count: 1...max)
    }

    /// Words joined into one text (a query): `QUERY`, or `[QUERY]` when it may be left out.
    public static func words(_ name: String, count: ClosedRange<Int>) -> Positionals {
        Positionals(usage: count.lowerBound == 0 ? "[\(name)]" : name, count: count)
    }
}

/// What a shell's completion offers for a command's positionals.
public enum PositionalCompletion: String, Sendable {
    case none
    /// Files and folders.
    case files
    /// The ids of the home's cached catalogs (`corpus install`, `corpus show`).
    case catalogIDs = "catalog"
    /// The ids of installed corpora (`corpus remove`, `corpus verify`, …).
    case installedIDs = "installed"
}

/// One command's row of the command table: the words that name it, what it does, its arguments
/// and options. The parser reads it, and usage and help text are generated from it, so the two
/// cannot disagree.
public struct CommandSpec: Sendable {
    public let path: [String]               // ["remote", "add"]
    public let summary: String
    public let positionals: Positionals
    /// In usage order; those declared `required()` are the ones the parser requires.
    public let options: [Option]
    /// Groups of options of which the command needs one (it checks which, and says so): shown
    /// as `(--corpora A,B | --tier T)`.
    public let oneOf: [[Option]]

    public init(_ path: [String], _ summary: String, positionals: Positionals = .none, options: [Option] = [],
                oneOf: [[Option]] = []) {
        self.path = path
        self.summary = summary
        self.positionals = positionals
        self.options = options
        self.oneOf = oneOf
    }

    public var name: String { path.joined(separator: " ") }

    /// The arguments part of the usage line, from the table: positionals, then every option in
    /// table order (`--trust PUB` when required, `[--mirror URL]...` when repeatable, each group
    /// of `oneOf` where its first member stands).
    public var usage: String {
        var parts = positionals.usage.isEmpty ? [] : [positionals.usage]
        for option in options {
            if let group = oneOf.first(where: { $0.contains(option) }) {
                if group.first == option { parts.append("(" + group.map(\.synopsis).joined(separator: " | ") + ")") }
            } else if option.isRequired {
                parts.append(option.synopsis)
            } else {
                parts.append("[\(option.synopsis)]" + (option.isRepeatable ? "..." : ""))
            }
        }
        return parts.joined(separator: " ")
    }
}
