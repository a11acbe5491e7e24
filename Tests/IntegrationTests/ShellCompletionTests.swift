import Testing
import Foundation
import CorpusTestSupport

/// The completions `corpus --completion bash|zsh|fish` generates from the command table, asked
/// the way each shell asks them: bash through its `compgen`-backed completion function, fish
/// through `complete -C`; zsh's is checked for syntax (`zsh -n`: zsh offers no way to run a
/// completion outside an interactive line editor). Corpus ids come from the home's cached
/// catalog, which the real client fetched from a real tree over loopback.
@Suite(.serialized) struct ShellCompletionTests {
    /// A home whose client fetched the catalog of a tree with two corpora.
    final class CachedCatalogHome: @unchecked Sendable {
        let tree: PublishedCorpusTree
        let server: MisbehavingServer
        let client = IntegrationClient("completion-home")
        let scripts = TempDirectory("completions")

        init() throws {
            tree = try PublishedCorpusTree(corpora: [
                .init(id: "tides", documents: PublishedCorpusTree.documents("tide chart")),
                .init(id: "sourdough", documents: PublishedCorpusTree.documents("starter levain")),
            ])
            server = try MisbehavingServer(root: tree.publicDir)
            try client.must(["remote", "add", "main", server.baseURL, "--trust", tree.rootPub])
            try client.must(["catalog"])
        }
    }

    static func script(_ shell: String, in home: CachedCatalogHome) throws -> String {
        let r = try ProcessRunner.run(BuiltProducts.corpus, ["--completion", shell])
        try #require(r.status == 0, "\(r.stderr)")
        return try home.scripts.write("corpus.\(shell)", r.stdout)
    }

    /// bash's answer for the words typed so far (the last one is being completed).
    static func bash(_ script: String, _ words: [String], home: String? = nil) throws -> [String] {
        let array = words.map { "'\($0)'" }.joined(separator: " ")
        let program = "source '\(script)'; COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); _corpus; printf '%s\\n' \"${COMPREPLY[@]}\""
        var environment = ["PATH": "\(BuiltProducts.directory):/usr/bin:/bin"]
        if let home { environment["CORPUS_HOME"] = home }
        let r = try ProcessRunner.run("/bin/bash", ["--norc", "-c", program], environment: environment)
        try #require(r.status == 0, "bash: \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    @Test func bashCompletesCommandsOptionsAndCachedCatalogIDs() throws {
        let home = try CachedCatalogHome()
        let script = try Self.script("bash", in: home)
        #expect(try Self.bash(script, ["corpus", "ins"]) == ["install"])
        #expect(try Self.bash(script, ["corpus", "remote", "a"]) == ["add"])
        #expect(try Self.bash(script, ["corpus", "catalog", "--acc"]) == ["--access"])
        #expect(try Self.bash(script, ["corpus", "catalog", "--access", ""]) == ["free", "entitled"])
        // `corpus install <TAB>`: the ids of the home's cached catalog, from --home or CORPUS_HOME.
        #expect(try Self.bash(script, ["corpus", "--home", home.client.home, "install", ""]) == ["sourdough", "tides"])
        #expect(try Self.bash(script, ["corpus", "install", "t"], home: home.client.home) == ["tides"])
        // Nothing is installed, so `remove` offers no id; and the ids came from disk alone.
        let requests = home.server.requestCount
        #expect(try Self.bash(script, ["corpus", "remove", ""], home: home.client.home) == [])
        #expect(home.server.requestCount == requests)
    }

    @Test func fishCompletesCommandsAndCachedCatalogIDsAndZshParses() throws {
        let home = try CachedCatalogHome()
        let fish = try Self.script("fish", in: home)
        let environment = ["PATH": "\(BuiltProducts.directory):/usr/bin:/bin", "CORPUS_HOME": home.client.home, "HOME": home.scripts.path]
        let r = try ProcessRunner.run("/usr/bin/fish", ["--no-config", "-c", "source '\(fish)'; complete -C 'corpus ins'; complete -C 'corpus install '"],
                                      environment: environment)
        try #require(r.status == 0, "fish: \(r.stderr)")
        let words = r.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        #expect(words == ["install", "sourdough", "tides"], "\(r.stdout)")

        let zsh = try Self.script("zsh", in: home)
        let z = try ProcessRunner.run("/usr/bin/zsh", ["-n", zsh])
        #expect(z.status == 0, "zsh -n: \(z.stderr)")
        #expect(try String(contentsOfFile: zsh, encoding: .utf8).hasPrefix("#compdef corpus\n"))
    }
}
