import CorpusFormat
import CorpusSync
import CorpusURLSession
import Foundation

/// `corpus-bench install-client --home DIR --remote URL --trust FILE --id ID --transport curl|urlsession`
///
/// One install through the library (`CorpusClient.install`), as an app does it, over the transport
/// named: the leg `InstallBench` runs twice per round to put the URLSession transport's time as a
/// ratio to libcurl's, both in the same kind of process (`corpus` cannot pick URLSession on Linux:
/// docs/apple.md "HTTP transport").
enum ClientInstallBench {
    static func run(_ args: [String]) async throws {
        var options = BenchArguments(args)
        let home = options.value("--home") ?? ""
        let remote = options.value("--remote") ?? ""
        let trust = options.value("--trust") ?? ""
        let id = options.value("--id") ?? ""
        let transportName = options.value("--transport") ?? "curl"
        try options.refuseUnread()
        guard !home.isEmpty, !remote.isEmpty, !trust.isEmpty, !id.isEmpty else {
            throw BuildBench.BenchError("install-client needs --home, --remote, --trust and --id")
        }
        let transport: HTTPTransportFactory
        switch transportName {
        case "curl": transport = .curl
        case "urlsession": transport = .urlSession
        default: throw BuildBench.BenchError("--transport \(transportName.debugDescription) is not curl or urlsession")
        }
        var client = CorpusClient(home: HomeLayout(root: home), httpConfiguration: HTTPClientConfiguration(transport: transport))
        client.catalogDeadline = nil
        _ = try client.addRemote(name: "bench", url: remote, mirrors: [], trust: try PublicKey(contentsOf: trust))
        let outcomes = try await client.install([WantedCorpus(id: id)])
        guard !outcomes.isEmpty else { throw BuildBench.BenchError("install-client installed nothing") }
    }
}
