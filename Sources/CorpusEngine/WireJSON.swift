import Foundation

/// A wire shape the CLI prints with `--json` and the server answers: compact JSON with sorted
/// keys, so the same value is the same bytes wherever it is encoded (local and remote answers
/// compare byte for byte).
public protocol WireJSON: Codable, Sendable {}

extension WireJSON {
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
