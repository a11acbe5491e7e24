import Foundation

/// A benchmark's command line, read the one way every benchmark reads it: `--name VALUE` options
/// and bare `--flag`s, each taken out as it is read, so what is left over can be refused.
struct BenchArguments {
    private var words: [String]

    /// The words after the subcommand (a leading `subcommand` word, if still there, is dropped).
    init(_ args: [String], subcommand: String? = nil) {
        words = Array(args.drop { $0 == subcommand })
    }

    /// The value after `flag`, taken out; nil when `flag` is not given with a value.
    mutating func value(_ flag: String) -> String? {
        guard let i = words.firstIndex(of: flag), i + 1 < words.count else { return nil }
        defer { words.removeSubrange(i...(i + 1)) }
        return words[i + 1]
    }

    mutating func int(_ flag: String, default fallback: Int) -> Int { value(flag).flatMap(Int.init) ?? fallback }

    /// A folder option, made absolute against the current directory.
    mutating func folder(_ flag: String, default fallback: String) -> String {
        let path = value(flag) ?? fallback
        return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// True when the bare `flag` is given (taken out).
    mutating func flag(_ flag: String) -> Bool {
        guard let i = words.firstIndex(of: flag) else { return false }
        words.remove(at: i)
        return true
    }

    /// Refuses whatever was not read: an option this benchmark does not take.
    func refuseUnread() throws {
        if let first = words.first { throw BuildBench.BenchError("unknown option \(first)") }
    }
}
