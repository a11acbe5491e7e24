import Foundation
import CorpusFormat
import CorpusEngine
import CorpusTestSupport
import CorpusPublisher

/// A home folder holding corpora the real builder made: each bundle built (a folder, or another
/// app's export through the importer), verified and unpacked by the real bundle reader, its index
/// built as an install builds it, and filed under `corpora/local/<id>/` as the installer files it.
/// What a reader of the installed corpus sees, without a server in between.
final class BuiltHome {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    /// The sample corpora of the repository's `catalog/` folder.
    static let samples = ["field-guide-tides", "orbital-mechanics-primer", "sourdough-handbook"]

    let dir = TempDirectory("built-home")
    let key: SecretKey
    var home: String { dir.url("home") }

    init() throws {
        key = try SecretKey.generate()
    }

    /// Builds folder `source` as corpus `id` and installs it.
    func build(_ source: String, id: String) throws {
        let options = BuildOptions(source: source, id: id, version: CorpusVersion("1")!, title: id)
        try install(try CorpusBuilder.build(options, key: key, output: dir.url("out/\(id).corpus.zip")), id: id)
    }

    /// Imports another app's export `source` as corpus `id` and installs it.
    func `import`(_ source: String, from format: ImportFormat, id: String) throws {
        let options = ImportOptions(format: format, source: source, id: id, version: CorpusVersion("1")!)
        try install(try CorpusBuilder.build(importing: options, key: key, output: dir.url("out/\(id).corpus.zip")), id: id)
    }

    private func install(_ summary: BuildSummary, id: String) throws {
        let corpusDir = "\(home)/corpora/local/\(id)"
        try FileManager.default.createDirectory(atPath: "\(corpusDir)/versions", withIntermediateDirectories: true)
        let manifest = try BundleReader(path: summary.output).extract(to: "\(corpusDir)/versions/1", trustedKeys: [key.publicKey])
        if manifest.index == .install { try PackIndexer.build(packAt: "\(corpusDir)/versions/1/\(BundleLayout.pack)") }
        try PackFixture.pointCurrent(corpusDir: corpusDir, at: "versions/1")
    }

    /// `(pid, document path, section, text)` of every passage of installed corpus `id`, by the real `sqlite3`.
    func passages(_ id: String) throws -> [(pid: String, document: String, section: String, text: String)] {
        let pack = "\(home)/corpora/local/\(id)/versions/1/\(BundleLayout.pack)"
        let db = try Database(path: pack, mode: .readOnly)
        let s = try db.prepare("SELECT p.pid, d.path, p.section, p.text FROM passages p JOIN documents d ON d.id = p.document_id ORDER BY p.id")
        var out: [(String, String, String, String)] = []
        while try s.step() { out.append((s.text(0), s.text(1), s.text(2), s.text(3))) }
        return out
    }

    /// A whole read's text: its sections' texts in order, whitespace-normalised.
    static func text(_ read: DocumentText) -> String {
        ReadText.normalised(read.sections.map(\.text).joined(separator: " "))
    }
}
