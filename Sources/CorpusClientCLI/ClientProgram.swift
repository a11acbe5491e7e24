import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpus`: the client command. The table below is the whole command line; each command's
/// work lives in `ClientCommands` and the library underneath.
public enum ClientProgram {
    static let globals: [OptionSpec] = [
        .value("--home", "home folder (default: $CORPUS_HOME, else $XDG_DATA_HOME/corpus)"),
        .flag("--json", "print one JSON object on stdout, progress as JSON lines on stderr"),
        .flag("--quiet", short: "-q", "print only errors"),
        .value("--token", "entitlement token (default: $CORPUS_TOKEN, else the one stored by `corpus login`)"),
        .flag("--help", short: "-h", "show this help"),
    ]

    static let parser = ArgumentParser(commands: [
        CommandSpec(["remote", "add"], "NAME URL [--mirror URL]... --trust PUB", "add a catalog and pin its root key",
                    positionals: 2...2, options: [.value("--mirror", repeatable: true, "a mirror of the catalog's tree (untrusted)"),
                                                  .value("--trust", "the catalog's root public key (minisign .pub file)")],
                    required: ["--trust"]),
        CommandSpec(["remote", "list"], "", "show the configured catalogs"),
        CommandSpec(["remote", "remove"], "NAME", "forget a catalog (installed corpora stay)", positionals: 1...1),
        CommandSpec(["catalog"], "[QUERY] [--language L] [--access free|entitled]",
                    "browse what the catalogs offer, with installed / locked / update-available state", positionals: 0...50,
                    options: [.value("--language", "only corpora in this language"), .value("--access", "free or entitled")]),
        CommandSpec(["show"], "ID", "everything about one corpus", positionals: 1...1),
        CommandSpec(["install"], "ID[@VERSION]...", "download, verify and install corpora", positionals: 1...100),
        CommandSpec(["import"], "FILE.corpus.zip [--trust PUB]", "install a bundle file you downloaded by hand", positionals: 1...1,
                    options: [.value("--trust", repeatable: true, "an extra public key to accept for this bundle")]),
        CommandSpec(["remove"], "ID...", "remove installed corpora", positionals: 1...100),
        CommandSpec(["list"], "", "the installed corpora"),
        CommandSpec(["sync"], "[--wanted FILE] [--prune]", "update installed corpora, or install exactly the set a wanted-file names",
                    options: [.value("--wanted", "JSON list of ids (\"id\", \"id@version\" or {\"id\":…,\"version\":…})"),
                              .flag("--prune", "with --wanted: remove installed corpora the file does not list")]),
        CommandSpec(["search"], "QUERY [--corpus ID]... [-k N] [--lexical-only]", "search every installed corpus", positionals: 1...100,
                    options: [.value("--corpus", repeatable: true, "search only this corpus (id or catalog/id)"),
                              .value("-k", "number of results (default 10)"),
                              .flag("--lexical-only", "skip the vector channel")]),
        CommandSpec(["verify"], "[ID]", "re-check installed files against their signed manifests", positionals: 0...1),
        CommandSpec(["gc"], "", "remove old versions, leftovers and partial downloads"),
        CommandSpec(["status"], "", "catalog freshness, updates available, import-limit use"),
        CommandSpec(["login"], "TOKEN", "store an entitlement token in the home folder (mode 600)", positionals: 1...1),
        CommandSpec(["logout"], "", "remove the stored token"),
    ], globals: globals)

    static let program = CommandLineProgram(name: "corpus", parser: parser, report: ClientErrors.report)

    /// Runs one `corpus` command line and returns the process exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        await program.main(arguments) { cmd, console in
            try await ClientCommands(cmd: cmd, console: console).run()
        }
    }
}
