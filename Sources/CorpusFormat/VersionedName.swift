/// A corpus named the way people type it: `ID`, `CATALOG/ID`, or either with `@VERSION`
/// (`tides`, `main/tides@3`). The one parser of that text, for `corpus install` and the
/// wanted-file of `corpus sync` (docs/cli.md); catalogs, manifests and trees hold ids and
/// versions in fields of their own and never this text.
public struct VersionedName: Hashable, Sendable, CustomStringConvertible {
    /// `ID` or `CATALOG/ID`, as typed: which corpus it names is the planner's to resolve.
    public var name: String
    /// The version asked for; nil for the newest the catalog offers.
    public var version: CorpusVersion?

    public init(name: String, version: CorpusVersion? = nil) {
        self.name = name
        self.version = version
    }

    /// Splits at the first `@`. Refuses text with nothing before the `@` (`@1`, or no text at
    /// all), an `@` with nothing after it (`tides@`), and a version that is no version
    /// (`tides@1..2`), each as its own case.
    public static func parse(_ text: String) throws(VersionedNameError) -> VersionedName {
        guard let at = text.firstIndex(of: "@") else {
            guard !text.isEmpty else { throw .missingID(text: text) }
            return VersionedName(name: text)
        }
        let name = String(text[..<at])
        let versionText = String(text[text.index(after: at)...])
        guard !name.isEmpty else { throw .missingID(text: text) }
        guard !versionText.isEmpty else { throw .missingVersion(text: text) }
        guard let version = CorpusVersion(versionText) else { throw .invalidVersion(text: text) }
        return VersionedName(name: name, version: version)
    }

    /// `name@version`, or the name alone: what `parse` reads back.
    public var description: String { version.map { "\(name)@\($0)" } ?? name }
}

/// Why a text is not `ID[@VERSION]`: a user's typing mistake (the command lines report it as a
/// usage error, exit 2), never a damaged or crafted file.
public enum VersionedNameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing before the `@` (`@1`), or no text at all.
    case missingID(text: String)
    /// An `@` with nothing after it (`tides@`).
    case missingVersion(text: String)
    /// What follows the `@` is no version (`tides@1..2`).
    case invalidVersion(text: String)

    /// The text refused.
    public var text: String {
        switch self {
        case let .missingID(t), let .missingVersion(t), let .invalidVersion(t): return t
        }
    }

    /// What is missing or wrong, said after the text: `"tides@" has no VERSION after the @`.
    public var problem: String {
        switch self {
        case let .missingID(t): return t.isEmpty ? "names no corpus: it has no ID" : "has no ID before the @"
        case .missingVersion: return "has no VERSION after the @"
        case .invalidVersion: return "is not an id with an optional @VERSION, like tides or tides@3 or tides@1.2.0"
        }
    }

    public var description: String { "\(text.debugDescription) \(problem)" }
}
