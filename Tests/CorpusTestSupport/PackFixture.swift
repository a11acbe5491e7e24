import Foundation
import CorpusFormat
import CorpusEngine

/// Builds small installed corpora for engine tests: a version folder with `pack.sqlite` in exactly
/// the docs/format.md schema, `vectors.bin` written by `VectorFileWriter` from the embedder's
/// vectors, and `corpus.json` from `Manifest`, placed in the home-folder layout (docs/layout.md).
/// Nothing is signed: the engine trusts an installed folder's bytes.
public struct PackFixture {
    public struct Passage: Sendable {
        public var section: String
        public var text: String
        public init(section: String = "", _ text: String) {
            self.section = section
            self.text = text
        }
    }

    public struct Document: Sendable {
        public var path: String
        public var title: String
        public var passages: [Passage]
        public init(path: String, title: String, passages: [Passage]) {
            self.path = path
            self.title = title
            self.passages = passages
        }
    }

    public var id: String
    public var version: String
    public var remote: String
    public var title: String
    public var documents: [Document]
    public var embedder: any Embedder
    public var encoding: VectorFileHeader.Encoding
    /// SQL run on the finished pack, to stage malicious or inconsistent packs.
    public var tamperSQL: [String] = []

    public init(id: String, version: String = "1", remote: String = "local", title: String? = nil, documents: [Document],
                embedder: any Embedder = HashingEmbedder(), encoding: VectorFileHeader.Encoding = .int8) {
        self.id = id
        self.version = version
        self.remote = remote
        self.title = title ?? id
        self.documents = documents
        self.embedder = embedder
        self.encoding = encoding
    }

    /// A fixture whose documents each hold one passage per text.
    public init(id: String, version: String = "1", remote: String = "local", texts: [String: [String]]) {
        self.init(id: id, version: version, remote: remote,
                  documents: texts.keys.sorted().map { path in
                      Document(path: path, title: ((path as NSString).lastPathComponent as NSString).deletingPathExtension, passages: texts[path]!.map { Passage($0) })
                  })
    }

    public var passageCount: Int { documents.reduce(0) { $0 + $1.passages.count } }

    /// Installs into `home`: writes `corpora/<remote>/<id>/versions/<version>/` and, when
    /// `makeCurrent`, points `current` at it (relative link, replaced by rename). Returns the folder.
    @discardableResult
    public func install(home: String, makeCurrent: Bool = true) throws -> String {
        let corpusDir = "\(home)/corpora/\(remote)/\(id)"
        let folder = "\(corpusDir)/versions/\(version)"
        try write(to: folder)
        if makeCurrent { try Self.pointCurrent(corpusDir: corpusDir, at: "versions/\(version)") }
        return folder
    }

    /// Points `corpusDir/current` at `target` with symlink + rename, as the installer does.
    public static func pointCurrent(corpusDir: String, at target: String) throws {
        let tmp = "\(corpusDir)/.current-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard symlink(target, tmp) == 0 else { throw FormatError.io(operation: "symlink", path: tmp, errno: errno) }
        guard rename(tmp, "\(corpusDir)/current") == 0 else { throw FormatError.io(operation: "rename", path: corpusDir, errno: errno) }
    }

    /// Writes the three files of one version into `folder` (created if needed).
    public func write(to folder: String) throws {
        try FileIO.createDirectory(folder)
        let packPath = "\(folder)/\(BundleLayout.pack)"
        let vectorsPath = "\(folder)/\(BundleLayout.vectors)"
        FileIO.remove(packPath)

        let (pids, texts) = try writePack(packPath)

        let writer = try VectorFileWriter(path: vectorsPath, encoding: encoding, dimension: embedder.dimension, rows: texts.count)
        for v in try embedder.embed(texts) { try writer.append(v) }
        try writer.finish()

        var members: [String: MemberInfo] = [:]
        for (name, path) in [(BundleLayout.pack, packPath), (BundleLayout.vectors, vectorsPath)] {
            let (digest, size) = try SHA256.digest(fileAt: path)
            members[name] = MemberInfo(sha256: digest, size: size)
        }
        let manifest = Manifest(id: id, version: try CorpusVersion.parse(version), title: title,
                                embedder: EmbedderInfo(id: embedder.id, dimension: embedder.dimension, encoding: encoding.name,
                                                       modelDigest: embedder.modelDigest),
                                documents: documents.count, passages: texts.count,
                                content: ContentDigest.make(passageIDs: pids, embedderID: embedder.id), members: members)
        try FileIO.writeAtomically(try manifest.canonicalBytes(), to: "\(folder)/\(BundleLayout.manifest)")
    }

    /// Writes the pack; returns the passage ids and the texts to embed, in row order.
    /// The connection closes on return, before anything hashes the file.
    private func writePack(_ packPath: String) throws -> (pids: [String], texts: [String]) {
        var pids: [String] = []
        var texts: [String] = []
        let db = try Database(path: packPath, mode: .create)
        for sql in PackSchema.statements { try db.execute(sql) }
        try db.transaction {
            let doc = try db.prepare("INSERT INTO documents(id, path, title) VALUES (?1, ?2, ?3)")
            let passage = try db.prepare("INSERT INTO passages(id, pid, document_id, ordinal, title, section, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            var row = 0
            for (d, document) in documents.enumerated() {
                try doc.bind(1, d + 1).bind(2, document.path).bind(3, document.title).run()
                for (ordinal, p) in document.passages.enumerated() {
                    let pid = PassageID.make(documentPath: document.path, section: p.section, ordinal: ordinal, text: p.text)
                    try passage.bind(1, row).bind(2, pid).bind(3, d + 1).bind(4, ordinal)
                        .bind(5, document.title).bind(6, p.section).bind(7, p.text).run()
                    pids.append(pid)
                    texts.append([document.title, p.section, p.text].joined(separator: " "))
                    row += 1
                }
            }
            let meta = try db.prepare("INSERT INTO meta(key, value) VALUES (?1, ?2)")
            typealias K = PackSchema.Meta
            for (k, v) in [(K.format, PackSchema.format), (K.corpusID, id), (K.corpusVersion, version),
                           (K.embedderID, embedder.id), (K.embedderDimension, String(embedder.dimension)),
                           (K.documents, String(documents.count)), (K.passages, String(row))] {
                try meta.bind(1, k).bind(2, v).run()
            }
        }
        for sql in PackSchema.finishStatements { try db.execute(sql) }
        for sql in tamperSQL { try db.execute(sql) }
        return (pids, texts)
    }
}
