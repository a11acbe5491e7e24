import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd timestamp PUBLIC_DIR --key KEY [--expires DURATION]`: re-signs `timestamp.json` for the
/// catalog the tree serves, as cron runs it between publishes.
struct TimestampCommand: ServerCommand {
    static let key = Option.path("--key", "KEY", "a timestamp secret key of the tree's newest root").required()
    static let expires = Option.duration("--expires", .timestampExpiry, "timestamp lifetime, like 6h, 1d or 3d (default: 1d)")
    static let spec = CommandSpec(["timestamp"], "sign a new timestamp.json for the catalog PUBLIC_DIR serves (run it from cron)",
                                  positionals: .exactly("PUBLIC_DIR").completing(.files), options: [key, expires])

    let context: ServerContext

    func run() throws -> Int32 {
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        let tree = cmd.positionals[0]
        let doc = try TimestampWriter.renew(tree: tree, key: key, expiresIn: cmd.duration(Self.expires) ?? TimestampWriter.defaultExpiry)
        if console.json {
            console.emit(TimestampSigned(doc))
        } else {
            console.info("signed \(tree)/\(TreeLayout.timestamp) version \(doc.version) for catalog \(doc.catalog.id) version \(doc.catalog.version), expires \(doc.expires)")
        }
        return 0
    }
}
