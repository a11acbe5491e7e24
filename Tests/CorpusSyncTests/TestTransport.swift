import Foundation
import CorpusSync
import CorpusURLSession

/// The transport this run of the client suite uses: `CORPUS_TEST_TRANSPORT=urlsession` runs it
/// over URLSession (`make test` runs CorpusSyncTests once per transport, the URLSession run with
/// `--no-parallel`: docs/apple.md says why); otherwise libcurl, the Linux default. A value that names no transport stops the run, so a typo never passes as the
/// default transport's run.
enum TestTransport {
    static let factory: HTTPTransportFactory = {
        switch ProcessInfo.processInfo.environment["CORPUS_TEST_TRANSPORT"] ?? "" {
        case "", "curl": return .curl
        case "urlsession": return .urlSession
        case let other: fatalError("CORPUS_TEST_TRANSPORT=\(other): expected curl or urlsession")
        }
    }()

    /// For a test of something only libcurl does here (docs/apple.md says why, per test).
    static var isCurl: Bool { factory.name == HTTPTransportFactory.curl.name }
}
