import Testing
import CorpusCLIKit
@testable import CorpusClientCLI
@testable import CorpusServerCLI

/// The parser both executables use, on the real `corpus` table (and `corpusd`'s where it
/// differs): every refusal, and the command lines it must accept.
@Suite struct ArgumentParserTests {
    static let corpus = ClientProgram.parser
    static let corpusd = ServerProgram.parser

    /// Every `UsageError` the parser throws, with the command lines that provoke it.
    static let refusals: [([String], UsageError)] = [
        ([], .noCommand),
        (["--json"], .noCommand),
        (["frobnicate"], .unknownCommand("frobnicate")),
        (["remote"], .unknownCommand("remote")),
        (["remote", "frob"], .unknownCommand("remote frob")),
        (["list", "--nope"], .unknownOption("--nope", command: "list")),
        (["--nope", "list"], .unknownOption("--nope", command: "")),
        (["search", "q", "-x"], .unknownOption("-x", command: "search")),
        (["search", "q", "-k=3"], .unknownOption("-k=3", command: "search")),
        (["search", "-1.5"], .unknownOption("-1.5", command: "search")),
        (["list", "--mirror", "http://m"], .unknownOption("--mirror", command: "list")),
        (["remote", "add", "n", "http://u", "--trust"], .missingValue("--trust")),
        (["list", "--home"], .missingValue("--home")),
        (["sync", "--prune=no"], .valueForFlag("--prune", given: "--prune=no", command: "sync")),
        (["sync", "--prune="], .valueForFlag("--prune", given: "--prune=", command: "sync")),
        (["--json=yes", "list"], .valueForFlag("--json", given: "--json=yes", command: "")),
        (["list", "--quiet=false"], .valueForFlag("--quiet", given: "--quiet=false", command: "list")),
        (["search", "q", "--lexical-only=1"], .valueForFlag("--lexical-only", given: "--lexical-only=1", command: "search")),
        (["--home", "/a", "list", "--home", "/b"], .repeated("--home")),
        (["list", "--home=/a", "--home=/b"], .repeated("--home")),
        (["search", "q", "-k", "1", "-k", "2"], .repeated("-k")),
        (["remote", "add", "n", "http://u", "--trust", "a.pub", "--trust", "b.pub"], .repeated("--trust")),
        (["show"], .wrongArgumentCount(command: "show", usage: "ID")),
        (["show", "a", "b"], .wrongArgumentCount(command: "show", usage: "ID")),
        (["list", "extra"], .wrongArgumentCount(command: "list", usage: "")),
        (["remote", "add", "n"], .wrongArgumentCount(command: "remote add", usage: "NAME URL [--mirror URL]... [--storage ORIGIN]... --trust PUB")),
        (["remote", "add", "n", "http://u"], .missingRequired("--trust", command: "remote add")),
        (["remote", "add", "--mirror", "http://m", "n", "http://u"], .missingRequired("--trust", command: "remote add")),
    ]

    @Test(arguments: refusals)
    func refuses(_ args: [String], _ expected: UsageError) {
        #expect(throws: expected) { try Self.corpus.parse(args) }
    }

    @Test func refusalsReadAsOneLine() {
        #expect(UsageError.valueForFlag("--prune", given: "--prune=no", command: "sync").description
                == "sync: option --prune takes no value, but was given one: --prune=no")
        #expect(UsageError.valueForFlag("--json", given: "--json=1", command: "").description == "option --json takes no value, but was given one: --json=1")
        #expect(UsageError.unknownOption("--nope", command: "list").description == "list: unknown option --nope")
        #expect(UsageError.missingValue("--trust").description == "option --trust needs a value")
        #expect(UsageError.repeated("--home").description == "option --home given more than once")
        #expect(UsageError.wrongArgumentCount(command: "show", usage: "ID").description == "wrong number of arguments; usage: show ID")
        #expect(UsageError.missingRequired("--trust", command: "remote add").description == "remote add needs --trust")
        #expect(UsageError.invalidValue(option: "-k", value: "zero", expected: "a number from 1 to 1000").description
                == #"-k "zero" is not a number from 1 to 1000"#)
        #expect(UsageError.unknownCommand("frob").description == #"unknown command "frob""#)
        #expect(UsageError.noCommand.description == "no command given")
    }

    /// Global options before or after the command, `=value`, repeated options, short names.
    static let accepted: [([String], path: [String], positionals: [String], values: [String: [String]], flags: [String])] = [
        (["--home", "/h", "list"], ["list"], [], ["--home": ["/h"]], []),
        (["list", "--home", "/h"], ["list"], [], ["--home": ["/h"]], []),
        (["--home=/h", "list"], ["list"], [], ["--home": ["/h"]], []),
        (["list", "--home="], ["list"], [], ["--home": [""]], []),
        (["--json", "remote", "list", "-q"], ["remote", "list"], [], [:], ["--json", "--quiet"]),
        (["list", "--json", "--json"], ["list"], [], [:], ["--json"]),
        (["remote", "add", "n", "--mirror", "http://m1", "http://u", "--mirror=http://m2", "--trust", "k.pub"], ["remote", "add"], ["n", "http://u"],
         ["--mirror": ["http://m1", "http://m2"], "--trust": ["k.pub"]], []),
        (["search", "tide", "tables", "-k", "3"], ["search"], ["tide", "tables"], ["-k": ["3"]], []),
        (["search", "q", "--corpus=a", "--corpus", "main/b"], ["search"], ["q"], ["--corpus": ["a", "main/b"]], []),
        // `--` ends the options: what follows is a query word, even `--json`.
        (["search", "--", "--json", "-k"], ["search"], ["--json", "-k"], [:], []),
        (["search", "q", "--", "--lexical-only"], ["search"], ["q", "--lexical-only"], [:], []),
        // Whole negative numbers are words; an option's value is taken as it comes.
        (["search", "-5"], ["search"], ["-5"], [:], []),
        (["search", "q", "-k", "-5"], ["search"], ["q"], ["-k": ["-5"]], []),
        (["search", "q", "-k", "--json"], ["search"], ["q"], ["-k": ["--json"]], []),
        (["sync", "--wanted", "w.json", "--prune"], ["sync"], [], ["--wanted": ["w.json"]], ["--prune"]),
        // `--help` after a command needs nothing else to be right.
        (["show", "--help"], ["show"], [], [:], ["--help"]),
        (["remote", "add", "-h"], ["remote", "add"], [], [:], ["--help"]),
    ]

    @Test(arguments: accepted)
    func accepts(_ c: (args: [String], path: [String], positionals: [String], values: [String: [String]], flags: [String])) throws {
        let parsed = try Self.corpus.parse(c.args)
        #expect(parsed.spec.path == c.path)
        #expect(parsed.positionals == c.positionals)
        for (name, values) in c.values {
            let option = try #require((Self.corpus.globals + parsed.spec.options).first { $0.name == name })
            #expect(parsed.values(option) == values, "\(name)")
            #expect(parsed.value(option) == values.last, "\(name)")
        }
        for option in Self.corpus.globals + parsed.spec.options where c.values[option.name] == nil {
            #expect(parsed.has(option) == c.flags.contains(option.name), "\(option.name)")
        }
    }

    @Test func typedKeysReadWhatTheTableDeclares() throws {
        let parsed = try Self.corpus.parse(["search", "q", "-k", "7", "--lexical-only", "--home", "/h"])
        #expect(parsed.value(SearchCommand.k) == "7")
        #expect(parsed.has(SearchCommand.lexicalOnly))
        #expect(parsed.value(.home) == "/h")
        #expect(parsed.value(.token) == nil)
        #expect(!parsed.has(.json))
    }

    @Test func corpusdKeepsItsOwnTable() {
        #expect(throws: UsageError.unknownOption("--home", command: "keygen")) { try Self.corpusd.parse(["keygen", "--out", "k", "--home", "/h"]) }
        #expect(throws: UsageError.valueForFlag("--force", given: "--force=no", command: "keygen")) { try Self.corpusd.parse(["keygen", "--out", "k", "--force=no"]) }
        #expect(throws: UsageError.missingRequired("--out", command: "keygen")) { try Self.corpusd.parse(["keygen"]) }
        #expect(throws: UsageError.unknownCommand("token")) { try Self.corpusd.parse(["token"]) }
    }
}
