import CorpusFormat
import Foundation

/// `HOME/config.json`: the configured remotes and local settings.
public struct ClientConfig: Codable, Sendable, Equatable {
    public var remotes: [Remote]
    /// An import limit set locally; a token's `import_limit` claim takes precedence when lower.
    public var importLimit: Int?
    /// `limit_rate`: the download cap every command applies unless `--limit-rate` is given, in
    /// curl's syntax (`2M`, `500K`, bytes per second: `RateLimit.parse`).
    public var limitRate: String?

    enum CodingKeys: String, CodingKey {
        case remotes
        case importLimit = "import_limit"
        case limitRate = "limit_rate"
    }

    public init(remotes: [Remote] = [], importLimit: Int? = nil) {
        self.remotes = remotes
        self.importLimit = importLimit
    }

    public static func load(_ home: HomeLayout) throws -> ClientConfig {
        guard let data = FileManager.default.contents(atPath: home.config) else { return ClientConfig() }
        do {
            let c = try JSONDecoder().decode(ClientConfig.self, from: data)
            for r in c.remotes { try Identifier.validate(r.name, what: "remote name") }
            return c
        } catch let e as FormatError {
            throw SyncError.localFileDamaged(path: home.config, reason: e.description)
        } catch {
            throw SyncError.localFileDamaged(path: home.config, reason: "it is not the JSON configuration corpus writes")
        }
    }

    public func save(_ home: HomeLayout) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try FileIO.createDirectory(home.root)
            try FileIO.writeAtomically(try encoder.encode(self), to: home.config)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    public func remote(named name: String) -> Remote? { remotes.first { $0.name == name } }
}
