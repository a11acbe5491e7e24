import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus import FILE.corpus.zip [--trust PUB]...`
struct ImportCommand: ClientCommand {
    static let trust = Option.repeatable("--trust", "PUB", accepts: .path, "an extra public key to accept for this bundle")
    static let spec = CommandSpec(["import"], "install a bundle file you downloaded by hand",
                                  positionals: .exactly("FILE.corpus.zip").completing(.files), options: [trust])

    let context: ClientContext

    func run() throws -> Int32 {
        let keys = try cmd.values(Self.trust).map { try PublicKey(contentsOf: $0) }
        let path = cmd.positionals[0]
        let m: Manifest
        do {
            m = try client.importBundle(path: path, trustedKeys: keys)
        } catch let e as SyncError where e.category == .verification {
            // Another app's corpus is refused by the bundle reader as an unsafe archive; only then
            // is the file looked at again, to say what it is and which command converts it (an
            // import that succeeds opens its file once, for the one verification).
            try ForeignBundleCheck.refuse(path)
            throw e
        }
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
