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
        UsageLine(parser: ClientProgram.parser, command: ["remote", "add"], usage: "NAME URL [--mirror URL]... [--storage ORIGIN]... --trust PUB"),
        UsageLine(parser: ClientProgram.parser, command: ["catalog"], usage: "[QUERY] [--language L] [--access free|entitled]"),
        UsageLine(parser: ClientProgram.parser, command: ["install"], usage: "ID[@VERSION]..."),
        UsageLine(parser: ClientProgram.parser, command: ["import"], usage: "FILE.corpus.zip [--trust PUB]..."),
        UsageLine(parser: ClientProgram.parser, command: ["sync"], usage: "[--wanted FILE] [--prune]"),
        UsageLine(parser: ClientProgram.parser, command: ["search"], usage: "QUERY [--corpus ID]... [-k N] [--lexical-only] [--remote NAME] [--exact] [--since TIME] [--until TIME] [--budget TOKENS] [--extract]"),
        UsageLine(parser: ClientProgram.parser, command: ["verify"], usage: "[ID]"),
        UsageLine(parser: ClientProgram.parser, command: ["list"], usage: ""),
        UsageLine(parser: ServerProgram.parser, command: ["keygen"], usage: "--out DIR [--name NAME] [--force]"),
        UsageLine(parser: ServerProgram.parser, command: ["build"], usage: "SOURCE --id ID --version V [--title T] [--description D] [--language L] [--license L] [--from corpuskit|knowledgepress|lumen] [--embedder ID] [--model DIR] [--index WHERE] --key KEY --out FILE.corpus.zip"),
        UsageLine(parser: ServerProgram.parser, command: ["serve"], usage: "PUBLIC_DIR [--listen HOST:PORT] [--entitlement-pub PUB] [--threads N] [--metrics-listen HOST:PORT] [--metrics-token-file FILE] [--gate-only] [--private s3://BUCKET/PREFIX] [--endpoint URL] [--region REGION] [--public-url URL] [--presign-expires DURATION] [--search HOME]"),
        UsageLine(parser: ServerProgram.parser, command: ["token", "issue"], usage: "--key KEY --sub SUBJECT (--corpora A,B | --tier T) (--aud CATALOG_ID | --catalog PUBLIC_DIR) [--expires DURATION] [--import-limit N] [--iss NAME]"),
    ]

    @Test(arguments: lines)
    func usageLine(_ c: UsageLine) throws {
        let spec = try #require(c.parser.commands.first { $0.path == c.command })
        #expect(spec.usage == c.usage)
    }

    @Test func commandHelpText() throws {
        let spec = try #require(ClientProgram.parser.commands.first { $0.path == ["remote", "add"] })
        #expect(ClientProgram.parser.usage(of: spec, program: "corpus") == """
            usage: corpus remote add NAME URL [--mirror URL]... [--storage ORIGIN]... --trust PUB
                add a catalog and pin its root key

            options:
              --mirror URL (repeatable)  a mirror of the catalog's tree (untrusted)
              --storage ORIGIN (repeatable)  an object store (scheme://host[:port]) the origin may redirect downloads to; the token is never sent there
              --trust PUB  the catalog's root public key (minisign .pub file)

            """)
        let help = ClientProgram.parser.help(program: "corpus")
        #expect(help.hasPrefix("usage: corpus COMMAND [OPTIONS]\n\ncommands:\n  remote add NAME URL [--mirror URL]... [--storage ORIGIN]... --trust PUB\n      add a catalog and pin its root key\n  remote list\n"))
        #expect(help.hasSuffix("\nglobal options:\n  --home DIR  home folder (default: $CORPUS_HOME, else $XDG_DATA_HOME/corpus)\n  --json  print one JSON object on stdout, progress as JSON lines on stderr\n  --quiet, -q  print only errors\n  --token TOKEN  entitlement token (default: $CORPUS_TOKEN, else the one stored by `corpus login`)\n  --help, -h  show this help\n"))
    }
}
