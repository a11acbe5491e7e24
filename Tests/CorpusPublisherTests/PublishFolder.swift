import CorpusFormat
import CorpusTestSupport

/// What the publisher tests' fixtures share: a temporary folder whose `catalog/` is the catalog
/// folder and `public/` the published tree, and a generated signing key, kept at `keys/root.key`
/// for the `corpusd` commands the tests run.
class PublishFolder {
    let dir: TempDirectory
    let key: SecretKey
    var catalog: String { dir.url("catalog") }
    var tree: String { dir.url("public") }
    var keyPath: String { dir.url("keys/root.key") }

    init(_ name: String) throws {
        dir = TempDirectory(name)
        key = try SecretKey.generate()
        try dir.write("keys/root.key", key.fileText)
    }
}
