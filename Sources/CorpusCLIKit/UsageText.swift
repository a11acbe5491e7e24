/// `--help` text, generated from the command table.
extension ArgumentParser {
    /// The usage of one command, with its options.
    public func usage(of spec: CommandSpec, program: String) -> String {
        var out = "usage: \(Self.line(program, spec))\n    \(spec.summary)\n"
        if !spec.options.isEmpty {
            out += "\noptions:\n"
            for o in spec.options { out += "  \(Self.entry(o))\(o.isRepeatable ? " (repeatable)" : "")  \(o.help)\n" }
        }
        return out
    }

    /// The help text: every command with its usage and summary, then the global options.
    public func help(program: String) -> String {
        var out = "usage: \(program) COMMAND [OPTIONS]\n\ncommands:\n"
        for c in commands {
            out += "  \(Self.line(nil, c))\n      \(c.summary)\n"
        }
        if !globals.isEmpty {
            out += "\nglobal options:\n"
            for g in globals { out += "  \(Self.entry(g))  \(g.help)\n" }
            out += "  --version  print the version\n"
        }
        return out
    }

    /// `corpus remote add NAME URL [--mirror URL]... --trust PUB`
    static func line(_ program: String?, _ spec: CommandSpec) -> String {
        ([program, spec.name, spec.usage.isEmpty ? nil : spec.usage] as [String?]).compactMap { $0 }.joined(separator: " ")
    }

    /// `--quiet, -q`, `--home DIR`, or with what the declaration accepts: `-k N (1-1000)`.
    static func entry(_ option: Option) -> String {
        option.synopsis + (option.short.map { ", \($0)" } ?? "") + (option.takesValue ? option.accepts.allowed.map { " (\($0))" } ?? "" : "")
    }
}
