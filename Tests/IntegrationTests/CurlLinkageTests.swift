import Testing
import Foundation
import CorpusTestSupport

/// Fast start (issue 17): libcurl and the ~28 libraries it needs (GnuTLS, Kerberos, LDAP, ...) cost
/// more to load and relocate than a whole local search, so no executable links it; CorpusCurl loads
/// it with dlopen at the first HTTP handle (Sources/CCurl/shim.h). Installs still work: every
/// install and sync test downloads through it.
@Suite struct CurlLinkageTests {
    @Test func noExecutableLinksLibcurl() throws {
        for executable in [BuiltProducts.corpus, BuiltProducts.corpusd] {
            let libraries = try ClientLinkageTests.libraries(executable)
            #expect(!libraries.contains("libcurl"), "\(executable): \(libraries)")
        }
        // Nor what libcurl brought along (corpusd's libmicrohttpd needs GnuTLS itself).
        let corpus = try ClientLinkageTests.libraries(BuiltProducts.corpus)
        for library in ["libgnutls", "libkrb5", "libldap", "libssh2"] {
            #expect(!corpus.contains(library), "\(library): \(corpus)")
        }
    }
}
