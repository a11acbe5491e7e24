import Testing
import Foundation
import CorpusTestSupport

/// docs/architecture.md "Modules": the client command links only what a client needs. `corpus` names neither
/// libmicrohttpd (the server) nor libxml2 (the publisher's HTML reader) among the libraries it
/// loads; `corpusd` needs both. A CLI module that reached the server or publisher again would
/// bring them back.
@Suite struct ClientLinkageTests {
    static func libraries(_ executable: String) throws -> String {
        let r = try ProcessRunner.run("ldd", [executable])
        try #require(r.status == 0, "ldd \(executable): \(r.stderr)")
        return r.stdout
    }

    @Test func corpusLinksNoServerOrPublisherLibrary() throws {
        let corpus = try Self.libraries(BuiltProducts.corpus)
        #expect(!corpus.contains("libmicrohttpd"), "\(corpus)")
        #expect(!corpus.contains("libxml2"), "\(corpus)")
        #expect(corpus.contains("libsqlite3"), "\(corpus)")
        let corpusd = try Self.libraries(BuiltProducts.corpusd)
        #expect(corpusd.contains("libmicrohttpd") && corpusd.contains("libxml2"), "\(corpusd)")
    }
}

/// Fast start (issue 17): OpenBLAS starts a thread pool when it is loaded, so no executable links
/// it; the engine loads it when a model is first used.
@Suite struct OpenBLASLinkageTests {
    @Test func noExecutableLinksOpenBLAS() throws {
        for executable in [BuiltProducts.corpus, BuiltProducts.corpusd] {
            let libraries = try ClientLinkageTests.libraries(executable)
            #expect(!libraries.contains("libopenblas"), "\(executable): \(libraries)")
        }
    }
}
