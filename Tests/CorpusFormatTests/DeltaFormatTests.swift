import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// The delta container (docs/format.md "Delta"): what `DeltaWriter` writes `DeltaReader` reads
/// back, verified; a delta signed by another key, a manifest that is not the one `delta.json`
/// names, and changes of the wrong shape are refused with their own errors.
@Suite struct DeltaFormatTests {
    /// A signed delta of `changes` with a two-row vector file, and the key and manifest it carries.
    struct Written {
        let dir = TempDirectory("delta-format")
        let key: SecretKey
        let manifest: Manifest
        let manifestBytes: Data
        let document: DeltaDocument
        let path: String

        init(changes: DeltaChanges = Written.changes, manifestBytes override: Data? = nil, key: SecretKey? = nil) throws {
            let signer = try SecretKey.generate()
            self.key = key ?? signer
            let digest = SHA256.digest(Data("x".utf8))
            var m = Manifest(id: "tides", version: CorpusVersion("2")!, title: "Tides", embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"),
                             documents: 1, passages: 3, content: digest, members: [BundleLayout.pack: MemberInfo(sha256: digest, size: 1),
                                                                                    BundleLayout.vectors: MemberInfo(sha256: digest, size: 1)])
            m.rowsDigest = digest
            manifest = m
            let bytes = try m.canonicalBytes()
            manifestBytes = override ?? bytes
            let signature = try signer.sign(manifestBytes, trustedComment: m.trustedComment)
            let vectors = dir.url("added.bin")
            let w = try VectorFileWriter(path: vectors, encoding: .int8, dimension: 4, rows: 2)
            try w.append([1, 0, 0, 0])
            try w.append([0, 1, 0, 0])
            try w.finish()
            let doc = DeltaDocument(id: "tides", from: .init(version: CorpusVersion("1")!, content: digest, vectors: digest, rows: digest),
                                    to: .init(version: CorpusVersion("2")!, content: digest, manifest: SHA256.digest(bytes)),
                                    rows: .init(removed: 1, kept: 1, added: 2))
            path = dir.url("d.delta.zip")
            document = try DeltaWriter.write(document: doc, manifest: manifestBytes, manifestSignature: signature.fileText,
                                             changes: try changes.canonicalBytes(), vectorsPath: vectors, key: self.key, to: path)
        }

        static let changes = DeltaChanges(
            removedDocuments: [], documents: [.init(id: 1, path: "a.md", title: "A")], removed: [.init(row: 2, pid: "p-old")],
            rows: [.init(row: 0, pid: "p0", from: 1, ordinal: 4),
                   .init(row: 1, pid: "p1", document: 1, ordinal: 0, title: "A", section: "", text: "one"),
                   .init(row: 2, pid: "p2", document: 1, ordinal: 1, title: "A", section: "S", text: "two")])
    }

    @Test func whatTheWriterWritesTheReaderReadsBackVerified() throws {
        let w = try Written()
        let reader = try DeltaReader(path: w.path)
        let document = try reader.document(trustedKeys: [w.key.publicKey])
        #expect(document == w.document)
        #expect(document.members.keys.sorted() == DeltaLayout.payloadMembers.sorted())
        let (manifest, bytes, _) = try reader.manifest(of: document, trustedKeys: [w.key.publicKey])
        #expect(manifest == w.manifest && bytes == w.manifestBytes)
        #expect(try DeltaChanges.decode(reader.changes(of: document), passages: 3) == Written.changes)
        let vectors = w.dir.url("out.bin")
        try reader.extractVectors(of: document, to: vectors)
        #expect(FileIO.fileSize(vectors) == Int64(VectorFileHeader(encoding: .int8, dimension: 4, rows: 2).fileSize))
        #expect(document.trustedComment.hasPrefix("delta:tides from:1 to:2 content:"))
    }

    @Test func aDeltaSignedByAnotherKeyIsRefusedAsUntrusted() throws {
        let stranger = try SecretKey.generate()
        let w = try Written(key: stranger)
        let trusted = try SecretKey.generate()
        #expect(throws: FormatError.untrustedKey(keyID: stranger.keyID.description)) {
            try DeltaReader(path: w.path).document(trustedKeys: [trusted.publicKey])
        }
    }

    @Test func aManifestOtherThanTheOneTheDocumentNamesIsRefused() throws {
        // The document names the canonical bytes' hash; the member holds those bytes plus a space.
        let plain = try Written()
        let w = try Written(manifestBytes: try plain.manifest.canonicalBytes() + Data(" ".utf8))
        let reader = try DeltaReader(path: w.path)
        let document = try reader.document(trustedKeys: [w.key.publicKey])
        #expect {
            try reader.manifest(of: document, trustedKeys: [w.key.publicKey])
        } throws: { e in
            guard case let FormatError.hashMismatch(member, expected, _) = e else { return false }
            return member == DeltaLayout.manifest && expected == document.to.manifest.hex
        }
    }

    @Test(arguments: [
        (#"{"documents":[],"removed":[],"removed_documents":[],"rows":[{"pid":"a","row":1,"from":0},{"pid":"b","row":0,"from":1}]}"#,
         "row 0 is out of order"),
        (#"{"documents":[],"removed":[],"removed_documents":[],"rows":[{"pid":"a","row":5,"from":0}]}"#, "past the 3 rows"),
        (#"{"documents":[],"removed":[],"removed_documents":[],"rows":[{"pid":"a","row":0,"from":0,"text":"x"}]}"#, "changes its section or text"),
        (#"{"documents":[],"removed":[],"removed_documents":[],"rows":[{"pid":"a","row":0,"document":1,"ordinal":0,"title":"t","text":"x"}]}"#,
         "lacks a field"),
        (#"{"documents":[],"removed":[{"pid":"z","row":0}],"removed_documents":[],"rows":[{"pid":"a","row":0,"from":0}]}"#, "named twice"),
        (#"{"documents":[{"id":0,"path":"a","title":"A"}],"removed":[],"removed_documents":[],"rows":[]}"#, "a document id below 1"),
    ])
    func changesOfTheWrongShapeAreRefused(json: String, reason: String) throws {
        #expect {
            try DeltaChanges.decode(Data(json.utf8), passages: 3)
        } throws: { e in
            guard case let FormatError.malformed(what, r) = e else { return false }
            return what == "delta changes" && r.contains(reason)
        }
    }

    @Test func aCatalogListingADeltaAtAnUnsafePathIsMalformed() throws {
        let digest = SHA256.digest(Data("x".utf8))
        var entry = CatalogEntry(id: "tides", version: CorpusVersion("2")!, title: "T", description: "", language: "en", license: "",
                                 access: .free, tier: nil, bundled: false, bundle: BundleRef(path: "bundles/x.corpus.zip", digest: digest, size: 1),
                                 documents: 1, passages: 1, embedder: EmbedderInfo(id: "e", dimension: 4, encoding: "int8"), content: digest)
        entry.deltas = [DeltaRef(fromVersion: CorpusVersion("1")!, fromContent: digest, file: BundleRef(path: "../x", digest: digest, size: 1))]
        let catalog = Catalog(id: "c", title: "C", version: 1, issued: Date(), expires: Date().addingTimeInterval(3600), rootVersion: 1, corpora: [entry])
        #expect(throws: FormatError.malformed(what: "catalog", reason: "unsafe delta reference for tides")) {
            try Catalog.decode(catalog.canonicalBytes())
        }
        entry.deltas![0].path = "deltas/\(digest.hex).delta.zip"
        let fine = Catalog(id: "c", title: "C", version: 1, issued: Date(), expires: Date().addingTimeInterval(3600), rootVersion: 1, corpora: [entry])
        #expect(try Catalog.decode(fine.canonicalBytes()).corpora[0].deltas == entry.deltas)
    }
}
