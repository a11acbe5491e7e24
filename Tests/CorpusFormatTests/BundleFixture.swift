import Foundation
import CorpusFormat
import CorpusTestSupport

/// A small real corpus (an SQLite pack made by the sqlite3 binary, a vector file made by
/// `VectorFileWriter`), a fresh signing key, and ways to write real or hostile bundles from it.
final class BundleFixture {
    let dir = TempDirectory("bundle")
    let key: SecretKey
    let packPath: String
    let vectorsPath: String
    let manifest: Manifest
    /// The folder extraction targets live in; it holds an unrelated file so snapshots are not trivially empty.
    let home: String

    init() throws {
        key = try SecretKey.generate()
        try FileManager.default.createDirectory(atPath: dir.url("in"), withIntermediateDirectories: true)
        packPath = dir.url("in/pack.sqlite")
        vectorsPath = dir.url("in/vectors.bin")
        let sql = """
            PRAGMA journal_mode=DELETE;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            INSERT INTO meta VALUES('format','1'),('corpus_id','sea-guide');
            CREATE TABLE passages(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 199)
              INSERT INTO passages SELECT i, 'passage ' || i || ' about tides and harbours' FROM n;
            """
        let r = try ProcessRunner.run("sqlite3", [packPath, sql])
        guard r.status == 0 else { throw FormatError.io(operation: "sqlite3: \(r.stderr)", path: packPath, errno: EIO) }

        let writer = try VectorFileWriter(path: vectorsPath, encoding: .int8, dimension: 16, rows: 200)
        for row in 0..<200 {
            try writer.append((0..<16).map { Float(sin(Double(row * 16 + $0))) })
        }
        try writer.finish()

        let ids = (0..<200).map { PassageID.make(documentPath: "guide.md", section: "", ordinal: $0, text: "passage \($0)") }
        manifest = Manifest(id: "sea-guide", version: CorpusVersion("1.2")!, title: "Sea guide", description: "Tides, harbours — et marées",
                            language: "en", license: "CC-BY-4.0",
                            embedder: EmbedderInfo(id: "hash-uni-bi-16-v1", dimension: 16, encoding: "int8"),
                            documents: 1, passages: 200, content: ContentDigest.make(passageIDs: ids, embedderID: "hash-uni-bi-16-v1"))
        home = dir.url("home")
        try FileManager.default.createDirectory(atPath: "\(home)/other", withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: "\(home)/other/keep.txt"))
    }

    var packBytes: [UInt8] { get throws { [UInt8](try Data(contentsOf: URL(fileURLWithPath: packPath))) } }
    var vectorBytes: [UInt8] { get throws { [UInt8](try Data(contentsOf: URL(fileURLWithPath: vectorsPath))) } }

    /// A real bundle written by `BundleWriter`.
    @discardableResult
    func writeBundle(_ name: String = "sea.corpus.zip", key: SecretKey? = nil) throws -> (path: String, manifest: Manifest) {
        let path = dir.url(name)
        let m = try BundleWriter.write(manifest: manifest, packPath: packPath, vectorsPath: vectorsPath, key: key ?? self.key, to: path)
        return (path, m)
    }

    /// The manifest with the given member table, canonical bytes and a signature by the fixture key.
    func signed(members: [String: MemberInfo]) throws -> (bytes: [UInt8], signature: [UInt8]) {
        var m = manifest
        m.members = members
        let bytes = try m.canonicalBytes()
        let sig = try key.sign(bytes, trustedComment: m.trustedComment)
        return ([UInt8](bytes), Array(sig.fileText.utf8))
    }

    static func info(_ bytes: [UInt8]) -> MemberInfo {
        MemberInfo(sha256: SHA256.digest(bytes), size: Int64(bytes.count))
    }

    /// The four members, stored, with a manifest signed for `declared` (default: what is actually stored).
    func craftedEntries(pack: [UInt8]? = nil, vectors: [UInt8]? = nil,
                        declared: [String: MemberInfo]? = nil) throws -> [CraftedZipEntry] {
        let pack = try pack ?? packBytes
        let vectors = try vectors ?? vectorBytes
        let members = declared ?? [BundleLayout.pack: Self.info(pack), BundleLayout.vectors: Self.info(vectors)]
        let (m, s) = try signed(members: members)
        return [
            CraftedZipEntry(name: BundleLayout.manifest, stored: m),
            CraftedZipEntry(name: BundleLayout.signature, stored: s),
            CraftedZipEntry(name: BundleLayout.pack, stored: pack),
            CraftedZipEntry(name: BundleLayout.vectors, stored: vectors),
        ]
    }

    func writeCrafted(_ entries: [CraftedZipEntry], trailing: [UInt8] = [], name: String = "crafted.corpus.zip") throws -> String {
        try dir.write(name, Data(ZipCrafting.build(entries, trailing: trailing)))
    }

    /// Opens and extracts `bundle` into `home/<target>`, returning the refusal (nil on success)
    /// and whether the home folder is byte-identical afterwards; `zip` is the zip reader used.
    func attemptExtract(_ bundle: String, keys: [PublicKey]? = nil, target: String = "out", zip: ZipImplementation = .platformDefault,
                        progress: ((BundleProgress) -> Void)? = nil) -> (error: Error?, unchanged: Bool) {
        DirectorySnapshot.attempt(leaving: home) {
            try BundleReader(path: bundle, implementation: zip).extract(to: "\(home)/\(target)", trustedKeys: keys ?? [key.publicKey], progress: progress)
        }
    }
}
