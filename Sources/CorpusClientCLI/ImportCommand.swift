import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus import FILE.corpus.zip [--trust PUB]...`
struct ImportCommand: ClientCommand {
    static let trust = Option.repeatable("--trust", "PUB", "an extra public key to accept for this bundle")
    static let spec = CommandSpec(["import"], "install a bundle file you downloaded by hand",
                                  positionals: .exactly("FILE.corpus.zip"), options: [trust])

    let context: ClientContext

    func run() throws -> Int32 {
        let keys = try cmd.values(Self.trust).map { try PublicKey(contentsOf: $0) }
        try ForeignBundleCheck.refuse(cmd.positionals[0])
        let m = try client.importBundle(path: cmd.positionals[0], trustedKeys: keys)
        if console.json {
            console.emit(Imported(imported: .init(id: m.id, version: m.version.description, catalog: HomeLayout.localRemote)))
        } else {
            console.info("imported \(m.id) \(m.version) (\(m.documents) documents, \(m.passages) passages) as local/\(m.id)")
        }
        return 0
    }

    /// `{"imported": {"id", "version", "catalog": "local"}}`
    struct Imported: Encodable {
        struct Corpus: Encodable {
            let id: String
            let version: String
            let catalog: String
        }

        let imported: Corpus
    }
}
