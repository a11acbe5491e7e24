import CorpusFormat
import Foundation

/// What one operation of the client (an install, a sync, an import, a removal) reads once and
/// hands down, instead of each step reading it again: `config.json`, the installed corpora, the
/// import limit in force, and, for operations that use the network, one `HTTPClient`, so the
/// connection that fetched the catalog also fetches the bundle.
struct ClientOperation: Sendable {
    /// The settings the app gave its client (token, retries, lock wait, catalog deadline).
    let settings: CorpusClient
    let config: ClientConfig
    /// The installed corpora when the operation began (the corpus lock and the import lock decide
    /// what changes later; see `Installer`).
    let installed: [InstalledVersion]
    let importLimit: Int?
    /// Nil for operations that make no request.
    let http: HTTPClient?

    var home: HomeLayout { settings.home }

    static func begin(_ settings: CorpusClient, network: Bool) throws -> ClientOperation {
        let config = try ClientConfig.load(settings.home)
        return ClientOperation(settings: settings, config: config, installed: settings.home.installed(),
                               importLimit: settings.importLimit(configured: config.importLimit),
                               http: network ? try HTTPClient(configuration: settings.httpConfiguration) : nil)
    }

    var installedRecords: [InstalledCorpusRecord] { installed.map(\.record.asRecord) }

    /// The catalog refresher of this operation, on its HTTP client.
    func catalogRefresher() throws -> CatalogRefresher {
        guard let http else { preconditionFailure("an operation without network fetches no catalog") }
        return try CatalogRefresher(settings, remotes: config.remotes, http: http)
    }
}
