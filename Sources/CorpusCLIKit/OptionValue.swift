import Foundation
import CorpusFormat

/// What an option's value must be, declared with the option. The parser checks every value
/// against it before the command runs (a usage error naming the option, the value and this),
/// `--help` shows it after the placeholder, and the command reads the value back typed
/// (`cmd.int`, `cmd.duration`, `cmd.choice`): no command converts a string by hand.
public enum OptionValue: Sendable {
    /// Any text; whatever the command checks about it (an id, a token) it says itself.
    case text
    /// A file or folder: any text but the empty one, which names nothing (`--home="$UNSET"`
    /// would otherwise mean the default home).
    case path
    /// A whole number in `range`; `counting` names what it counts, for the refusal ("a whole
    /// number of corpora from 0 to 10000").
    case integer(ClosedRange<Int>, counting: String?)
    /// One of `words`, exactly as written.
    case choice([String])
    /// A duration as `Timestamp.duration` reads it (`90s`, `12h`, `30d`, `2w`), within `bounds`.
    case duration(DurationOption)
    /// An http or https URL with a host.
    case url

    /// True when `text` is a value of this kind.
    public func accepts(_ text: String) -> Bool {
        switch self {
        case .text: return true
        case .path: return !text.isEmpty
        case let .integer(range, _): return Int(text).map(range.contains) ?? false
        case let .choice(words): return words.contains(text)
        case let .duration(bounds): return Timestamp.duration(text).map(bounds.range.contains) ?? false
        case .url: return Self.isWebURL(text)
        }
    }

    /// What a refusal says the value is not: `a whole number from 1 to 1000`, `free or entitled`.
    public var expected: String {
        switch self {
        case .text: return "text"
        case .path: return "a path (it is empty)"
        case let .integer(range, counting):
            return "a whole number\(counting.map { " of \($0)" } ?? "") from \(range.lowerBound) to \(range.upperBound)"
        case let .choice(words):
            return words.count == 2 ? "\(words[0]) or \(words[1])" : "one of \(words.joined(separator: ", "))"
        case let .duration(bounds): return "a duration \(bounds.bounds), like \(bounds.examples)"
        case .url: return "an http or https URL with a host"
        }
    }

    /// What `--help` shows after the placeholder (`-k N (1-1000)`); nil when the placeholder says
    /// it all (`--access free|entitled`) or anything goes.
    public var allowed: String? {
        switch self {
        case .text, .path, .choice: return nil
        case let .integer(range, _): return "\(range.lowerBound)-\(range.upperBound)"
        case let .duration(bounds): return bounds.span
        case .url: return "http or https"
        }
    }

    /// `http://host…` or `https://host…` (the scheme in any case), as Foundation reads a URL.
    static func isWebURL(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }
}
