import Testing
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher
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
        (["remote", "add", "n"], .wrongArgumentCount(command: "remote add", usage: "NAME URL [--mirror URL]... [--storage ORIGIN]... --trust ROOT.json|PUB [--witness PUB]... [--witness-threshold K] [--channel NAME]")),
        (["remote", "add", "n", "http://u"], .missingRequired("--trust", command: "remote add")),
        (["remote", "add", "--mirror", "http://m", "n", "http://u"], .missingRequired("--trust", command: "remote add")),
    ]

    @Test(arguments: refusals)
    func refuses(_ args: [String], _ expected: UsageError) {
        #expect(throws: expected) { try Self.corpus.parse(args) }
    }

    /// A value its option's declaration does not accept, refused while parsing (exit 2), before
    /// the command runs: one case per value kind, each with the line a user reads.
    struct ValueCase: Sendable, CustomTestStringConvertible {
        let parser: ArgumentParser
        let args: [String]
        let line: String
        var testDescription: String { args.joined(separator: " ") }

        init(_ parser: ArgumentParser, _ args: [String], _ line: String) {
            self.parser = parser
            self.args = args
            self.line = line
        }
    }

    static let gate = ["serve", "tree", "--gate-only", "--private", "s3://b/p", "--endpoint", "http://127.0.0.1:9"]

    static let valueRefusals: [ValueCase] = [
        // An integer in a closed range.
        ValueCase(corpus, ["search", "q", "-k", "zero"], #"-k "zero" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "0"], #"-k "0" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "1001"], #"-k "1001" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "-5"], #"-k "-5" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "3.0"], #"-k "3.0" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "1e3"], #"-k "1e3" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", " 3"], #"-k " 3" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "-k", "99999999999999999999"], #"-k "99999999999999999999" is not a whole number from 1 to 1000"#),
        ValueCase(corpus, ["search", "q", "--budget", "63"], #"--budget "63" is not a whole number of tokens from 64 to 1000000"#),
        ValueCase(corpusd, ["serve", "tree", "--threads", "65"], #"--threads "65" is not a whole number from 1 to 64"#),
        ValueCase(corpusd, ["publish", "cat", "--out", "o", "--key", "k", "--deltas", "17"], #"--deltas "17" is not a whole number from 0 to 16"#),
        ValueCase(corpusd, ["token", "issue", "--import-limit", "10001"], #"--import-limit "10001" is not a whole number of corpora from 0 to 10000"#),
        // One word of a few.
        ValueCase(corpus, ["catalog", "--access", "paid"], #"--access "paid" is not free or entitled"#),
        ValueCase(corpus, ["catalog", "--access", "FREE"], #"--access "FREE" is not free or entitled"#),
        ValueCase(corpusd, ["build", "src", "--index", "nowhere"], #"--index "nowhere" is not bundle or install"#),
        ValueCase(corpusd, ["build", "src", "--from", "pocket"], #"--from "pocket" is not one of corpuskit, knowledgepress, lumen"#),
        // A duration within its command's bounds.
        ValueCase(corpusd, ["publish", "cat", "--out", "o", "--key", "k", "--expires", "367d"], #"--expires "367d" is not a duration from 1h to 366d, like 12h, 30d or 2w"#),
        ValueCase(corpusd, ["publish", "cat", "--out", "o", "--key", "k", "--expires", "soon"], #"--expires "soon" is not a duration from 1h to 366d, like 12h, 30d or 2w"#),
        ValueCase(corpusd, ["token", "issue", "--expires", "59s"], #"--expires "59s" is not a duration from 1m to 1096d, like 90s, 12h, 30d or 2w"#),
        ValueCase(corpusd, gate + ["--presign-expires", "2h"], #"--presign-expires "2h" is not a duration from 30s to 1h, like 90s, 5m or 15m"#),
        // An http or https URL with a host; a user part is never shown.
        ValueCase(corpusd, gate + ["--public-url", "ftp://h/tree"], #"--public-url "ftp://h/tree" is not an http or https URL with a host"#),
        ValueCase(corpusd, gate + ["--public-url", "tree"], #"--public-url "tree" is not an http or https URL with a host"#),
        ValueCase(corpusd, gate + ["--public-url", "http:///tree"], #"--public-url "http:///tree" is not an http or https URL with a host"#),
        ValueCase(corpusd, gate + ["--public-url", "ftp://AK:SECRET@h/tree"], #"--public-url "ftp://…@h/tree" is not an http or https URL with a host"#),
        // A path: an empty one names nothing (`--home="$UNSET"` would have used the default home).
        ValueCase(corpus, ["list", "--home="], #"--home "" is not a path (it is empty)"#),
        ValueCase(corpusd, ["keygen", "--out", ""], #"--out "" is not a path (it is empty)"#),
    ]

    @Test(arguments: valueRefusals)
    func refusesAValueItsDeclarationDoesNotAccept(_ c: ValueCase) {
        #expect {
            try c.parser.parse(c.args)
        } throws: { error in
            "\(error)" == c.line
        }
    }

    /// A value that looks like a credential is never shown in a refusal, whatever the option.
    @Test func aTokenGivenAsAnotherOptionsValueIsNotEchoed() {
        let token = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl"
        #expect {
            try Self.corpus.parse(["search", "q", "-k", token])
        } throws: { error in
            "\(error)" == "-k (a value shaped like a token, not shown) is not a whole number from 1 to 1000"
        }
    }

    /// Values each kind accepts, read back typed.
    @Test func valuesReadBackTyped() throws {
        let search = try Self.corpus.parse(["search", "q", "-k", "1000", "--budget", "64"])
        #expect(search.int(SearchCommand.k) == 1000 && search.int(SearchCommand.budget) == 64)
        #expect(try Self.corpus.parse(["search", "q", "-k", "+7"]).int(SearchCommand.k) == 7)
        #expect(try Self.corpus.parse(["catalog", "--access", "entitled"]).choice(CatalogCommand.access, as: Access.self) == .entitled)
        #expect(try Self.corpus.parse(["catalog"]).choice(CatalogCommand.access, as: Access.self) == nil)
        let publish = try Self.corpusd.parse(["publish", "cat", "--out", "o", "--key", "k", "--expires", "366d", "--deltas", "0"])
        #expect(publish.duration(PublishCommand.expires) == 366 * 86400 && publish.int(PublishCommand.deltas) == 0)
        let serve = try Self.corpusd.parse(Self.gate + ["--public-url", "HTTPS://cdn.example/tree", "--presign-expires", "30s"])
        #expect(serve.value(ServeCommand.publicURL) == "HTTPS://cdn.example/tree" && serve.duration(ServeCommand.presignExpires) == 30)
        let build = try Self.corpusd.parse(["build", "src", "--id", "a", "--version", "1", "--key", "k", "--out", "o", "--from", "lumen", "--index", "bundle"])
        #expect(build.choice(BuildCommand.from, as: ImportFormat.self) == .lumen && build.value(BuildCommand.index) == "bundle")
        #expect(try build.required(BuildCommand.id) == "a")
    }

    /// `--help` after a command still needs nothing else to be right, values included.
    @Test func helpNeedsNoValidValue() throws {
        #expect(try Self.corpus.parse(["search", "q", "-k", "zero", "--help"]).has(.help))
    }

    /// `required` reads an option the parser made sure of; for one a command forgot to declare
    /// required (or does not list), it is a usage error naming the option, never a crash.
    @Test func requiredNeverCrashes() throws {
        let optional = Option.path("--out", "DIR", "where")
        let parser = ArgumentParser(commands: [CommandSpec(["t"], "t", options: [optional])], globals: [])
        let parsed = try parser.parse(["t"])
        #expect(throws: UsageError.missingRequired("--out", command: "t")) { try parsed.required(optional) }
        #expect(throws: UsageError.missingRequired("--other", command: "t")) { try parsed.required(Option.text("--other", "X", "not listed")) }
        #expect(try parser.parse(["t", "--out", "d"]).required(optional) == "d")
    }

    /// A required option is required by its declaration: the row needs no second list.
    @Test func theDeclarationMakesAnOptionRequired() {
        let out = Option.path("--out", "DIR", "where").required()
        let parser = ArgumentParser(commands: [CommandSpec(["t"], "t", options: [out])], globals: [])
        #expect(throws: UsageError.missingRequired("--out", command: "t")) { try parser.parse(["t"]) }
        #expect(parser.commands[0].usage == "--out DIR")
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
        (["--json", "remote", "list", "-q"], ["remote", "list"], [], [:], ["--json", "--quiet"]),
        (["list", "--json", "--json"], ["list"], [], [:], ["--json"]),
        (["remote", "add", "n", "--mirror", "http://m1", "http://u", "--mirror=http://m2", "--trust", "k.pub"], ["remote", "add"], ["n", "http://u"],
         ["--mirror": ["http://m1", "http://m2"], "--trust": ["k.pub"]], []),
        (["search", "tide", "tables", "-k", "3"], ["search"], ["tide", "tables"], ["-k": ["3"]], []),
        (["search", "q", "--corpus=a", "--corpus", "main/b"], ["search"], ["q"], ["--corpus": ["a", "main/b"]], []),
        // `--` ends the options: what follows is a query word, even `--json`.
        (["search", "--", "--json", "-k"], ["search"], ["--json", "-k"], [:], []),
        (["search", "q", "--", "--lexical-only"], ["search"], ["q", "--lexical-only"], [:], []),
        // Whole negative numbers are words; an option's value is taken as it comes (a text
        // option's: an integer option then checks it).
        (["search", "-5"], ["search"], ["-5"], [:], []),
        (["search", "q", "--remote", "-5"], ["search"], ["q"], ["--remote": ["-5"]], []),
        (["search", "q", "--remote", "--json"], ["search"], ["q"], ["--remote": ["--json"]], []),
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
        #expect(parsed.int(SearchCommand.k) == 7)
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
