import Testing
import CorpusCLIKit
@testable import CorpusClientCLI
@testable import CorpusServerCLI

/// Usage lines come from the same rows the parser reads: none can leave out an option (today's
/// `serve` usage left out `--threads`).
@Suite struct UsageTextTests {
    static let tables: [(program: String, parser: ArgumentParser)] = [("corpus", ClientProgram.parser), ("corpusd", ServerProgram.parser)]

    @Test func everyUsageLineNamesEveryOptionOfItsCommand() {
        for (program, parser) in Self.tables {
            for spec in parser.commands {
                for option in spec.options {
                    #expect(spec.usage.contains(option.synopsis), "\(program) \(spec.name): usage \(spec.usage.debugDescription) lacks \(option.synopsis)")
                }
                #expect(spec.usage.hasPrefix(spec.positionals.usage), "\(program) \(spec.name)")
                let text = parser.usage(of: spec, program: program)
                for option in spec.options { #expect(text.contains("  \(option.synopsis)"), "\(program) \(spec.name) --help lacks \(option.name)") }
            }
        }
    }

    /// One expected usage line. Named in the test log by its command: as a tuple, each case's
    /// log line printed the whole parser table.
    struct UsageLine: Sendable, CustomTestStringConvertible {
        let parser: ArgumentParser
        let command: [String]
        let usage: String
        var testDescription: String { command.joined(separator: " ") }
    }

    static let lines: [UsageLine] = [
        UsageLine(parser: ClientProgram.parser, command: ["remote", "add"], usage: "NAME URL [--mirror URL]... [--storage ORIGIN]... --trust ROOT.json|PUB [--witness PUB]... [--witness-threshold K] [--channel NAME]"),
        UsageLine(parser: ClientProgram.parser, command: ["catalog"], usage: "[QUERY] [--language L] [--access free|entitled] [--offset N] [--limit N]"),
        UsageLine(parser: ClientProgram.parser, command: ["install"], usage: "ID[@VERSION]... [--now]"),
        UsageLine(parser: ClientProgram.parser, command: ["import"], usage: "FILE.corpus.zip [--trust PUB]..."),
        UsageLine(parser: ClientProgram.parser, command: ["sync"], usage: "[--wanted FILE] [--prune] [--channel NAME]"),
        UsageLine(parser: ClientProgram.parser, command: ["search"], usage: "QUERY [--corpus ID]... [-k N] [--lexical-only] [--remote NAME] [--exact] [--since TIME] [--until TIME] [--budget TOKENS] [--extract]"),
        UsageLine(parser: ClientProgram.parser, command: ["verify"], usage: "[ID] [--log] [--against CHECKPOINT]"),
        UsageLine(parser: ClientProgram.parser, command: ["list"], usage: ""),
        UsageLine(parser: ServerProgram.parser, command: ["keygen"], usage: "--out DIR [--name NAME] [--force]"),
        UsageLine(parser: ServerProgram.parser, command: ["build"], usage: "SOURCE --id ID --version V [--title T] [--description D] [--language L] [--license L] [--from corpuskit|knowledgepress|lumen] [--embedder ID] [--model DIR] [--index bundle|install] --key KEY --out FILE.corpus.zip"),
        UsageLine(parser: ServerProgram.parser, command: ["serve"], usage: "PUBLIC_DIR [--listen HOST:PORT] [--entitlement-pub PUB] [--threads N] [--metrics-listen HOST:PORT] [--metrics-token-file FILE] [--gate-only] [--private s3://BUCKET/PREFIX] [--endpoint URL] [--region REGION] [--public-url URL] [--presign-expires DURATION] [--search HOME] [--key-store DIR]"),
        UsageLine(parser: ServerProgram.parser, command: ["token", "issue"], usage: "--key KEY --sub SUBJECT (--corpora A,B | --tier T) (--aud CATALOG_ID | --catalog PUBLIC_DIR) [--expires DURATION] [--import-limit N] [--iss NAME]"),
    ]

    @Test(arguments: lines)
    func usageLine(_ c: UsageLine) throws {
        let spec = try #require(c.parser.commands.first { $0.path == c.command })
        #expect(spec.usage == c.usage)
    }

    /// Each option's entry in `--help` shows what its declaration accepts, from the declaration
    /// the parser checks values with: a range, the words, a duration's bounds, a URL's schemes.
    static let helpEntries: [UsageLine] = [
        UsageLine(parser: ClientProgram.parser, command: ["search"], usage: "  -k N (1-1000)  number of results (default 10)\n"),
        UsageLine(parser: ClientProgram.parser, command: ["search"], usage: "  --budget TOKENS (64-1000000)  also give the passages that fit TOKENS WordPiece tokens, in rank order (3072 fits a 4,096-token window)\n"),
        UsageLine(parser: ClientProgram.parser, command: ["catalog"], usage: "  --access free|entitled  only free or only entitled corpora\n"),
        UsageLine(parser: ServerProgram.parser, command: ["build"], usage: "  --index bundle|install  "),
        UsageLine(parser: ServerProgram.parser, command: ["build"], usage: "  --from corpuskit|knowledgepress|lumen  "),
        UsageLine(parser: ServerProgram.parser, command: ["publish"], usage: "  --expires DURATION (1h to 366d)  catalog lifetime, like 12h, 30d or 2w (default: 30d)\n"),
        UsageLine(parser: ServerProgram.parser, command: ["publish"], usage: "  --deltas K (0-16)  "),
        UsageLine(parser: ServerProgram.parser, command: ["serve"], usage: "  --threads N (1-64)  "),
        UsageLine(parser: ServerProgram.parser, command: ["serve"], usage: "  --presign-expires DURATION (30s to 1h)  "),
        UsageLine(parser: ServerProgram.parser, command: ["serve"], usage: "  --public-url URL (http or https)  "),
        UsageLine(parser: ServerProgram.parser, command: ["token", "issue"], usage: "  --expires DURATION (1m to 1096d)  "),
        UsageLine(parser: ServerProgram.parser, command: ["token", "issue"], usage: "  --import-limit N (0-10000)  "),
    ]

    @Test(arguments: helpEntries)
    func helpShowsAllowedValues(_ c: UsageLine) throws {
        let spec = try #require(c.parser.commands.first { $0.path == c.command })
        let text = c.parser.usage(of: spec, program: "x")
        #expect(text.contains("\n" + c.usage), "\(text)")
    }

    @Test func commandHelpText() throws {
        let spec = try #require(ClientProgram.parser.commands.first { $0.path == ["remote", "add"] })
        #expect(ClientProgram.parser.usage(of: spec, program: "corpus") == """
            usage: corpus remote add NAME URL [--mirror URL]... [--storage ORIGIN]... --trust ROOT.json|PUB [--witness PUB]... [--witness-threshold K] [--channel NAME]
                add a catalog and pin its root key

            options:
              --mirror URL (repeatable)  a mirror of the catalog's tree (untrusted)
              --storage ORIGIN (repeatable)  an object store (scheme://host[:port]) the origin may redirect downloads to; the token is never sent there
              --trust ROOT.json|PUB  the catalog's root: a root document (keys/root-N.json) or its root public key (minisign .pub file)
              --witness PUB (repeatable)  a witness whose cosignature the catalog's log must carry: its key (name+keyid+base64, as corpusd witness prints it) or a file holding it
              --witness-threshold K (1-100)  how many of the --witness keys must cosign (default: all)
              --channel NAME  follow channel NAME besides stable (e.g. beta): the newest version across both is offered

            """)
        let help = ClientProgram.parser.help(program: "corpus")
        #expect(help.hasPrefix("usage: corpus COMMAND [OPTIONS]\n\ncommands:\n  remote add NAME URL [--mirror URL]... [--storage ORIGIN]... --trust ROOT.json|PUB [--witness PUB]... [--witness-threshold K] [--channel NAME]\n      add a catalog and pin its root key\n  remote list\n"))
        #expect(help.hasSuffix("\nglobal options:\n  --home DIR  home folder (default: $CORPUS_HOME, else $XDG_DATA_HOME/corpus)\n  --json  print one JSON object on stdout, progress as JSON lines on stderr\n  --quiet, -q  print only errors\n  --token TOKEN  entitlement token (default: $CORPUS_TOKEN, else the one stored by `corpus login`)\n  --offline  no network at all: work from what the home holds (default: on when $CORPUS_OFFLINE is 1)\n  --limit-rate RATE  cap download speed for the whole command, parallel downloads included, as curl's: 2M, 500K or bytes per second (default: config.json's limit_rate)\n  --help, -h  show this help\n  --version  print the version\n"))
    }
}
