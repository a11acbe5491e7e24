import Foundation
import CorpusFormat
import CorpusEngine

/// Makes the delta from one published version of a corpus to the next (docs/format.md "Delta"):
/// both bundles are extracted (and so verified) into a work folder, the new pack is compared
/// with the base pack row by row in SQLite (the base attached beside it), and the rows that differ,
/// the added rows' vectors and the new version's signed manifest are written as a signed delta.
enum DeltaBuilder {
    /// One version's files, extracted from its bundle.
    struct Version {
        let folder: String
        let manifest: Manifest
        var pack: String { "\(folder)/\(BundleLayout.pack)" }
        var vectors: String { "\(folder)/\(BundleLayout.vectors)" }

        static func extract(_ bundle: String, to folder: String, trustedKeys: [PublicKey]) throws -> Version {
            Version(folder: folder, manifest: try BundleReader(path: bundle).extract(to: folder, trustedKeys: trustedKeys))
        }
    }

    /// Writes the delta from `base` to `target` at `output`; returns its document as signed.
    static func write(from base: Version, to target: Version, key: SecretKey, work: String, output: String) throws -> DeltaDocument {
        let changes = try diff(base: base.pack, target: target.pack)
        let added = "\(work)/added-vectors.bin"
        defer { FileIO.remove(added) }
        try copyRows(changes.rows.filter(\.isAdded).map(\.row), of: target.vectors, to: added)
        guard let manifestBytes = FileManager.default.contents(atPath: "\(target.folder)/\(BundleLayout.manifest)") else {
            throw FormatError.io(operation: "read", path: "\(target.folder)/\(BundleLayout.manifest)", errno: ENOENT)
        }
        let signature = try String(contentsOfFile: "\(target.folder)/\(BundleLayout.signature)", encoding: .utf8)
        let baseRows = try base.manifest.rowsDigest ?? PackDigest.compute(packAt: base.pack, embedderID: base.manifest.embedder.id).rows
        let b = base.manifest, t = target.manifest
        let document = DeltaDocument(
            id: t.id,
            from: .init(version: b.version, content: b.content, vectors: b.members[BundleLayout.vectors]!.sha256, rows: baseRows),
            to: .init(version: t.version, content: t.content, manifest: SHA256.digest(manifestBytes)),
            rows: .init(removed: changes.removed.count, kept: changes.rows.count - changes.addedCount, added: changes.addedCount))
        return try DeltaWriter.write(document: document, manifest: manifestBytes, manifestSignature: signature,
                                     changes: try changes.canonicalBytes(), vectorsPath: added, key: key, to: output)
    }

    /// The optional tables an import may add (docs/format.md "Optional tables"), which a delta
    /// does not carry.
    static let tablesDeltasDoNotCarry = ["document_meta", "passage_meta", "highlights"]

    /// True when the pack holds rows only in the tables a delta carries (documents and passages;
    /// meta comes from the manifest, the index from the rows).
    static func carriesOnlyWhatDeltasCarry(packAt path: String) throws -> Bool {
        let db = try Database(path: path, mode: .readOnly)
        let tables = try db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('document_meta', 'passage_meta', 'highlights')")
        var present: [String] = []
        while try tables.step() { present.append(tables.text(0)) }
        for table in present where Self.tablesDeltasDoNotCarry.contains(table) {
            if try db.scalarInt("SELECT count(*) FROM \(table)") ?? 0 > 0 { return false }
        }
        return true
    }

    /// The row changes from the pack at `base` to the pack at `target`.
    static func diff(base: String, target: String) throws -> DeltaChanges {
        let db = try Database(path: target, mode: .readOnly)
        try db.prepare("ATTACH DATABASE ?1 AS base").bind(1, base).run()
        var changes = DeltaChanges()
        let removedDocuments = try db.prepare("SELECT id FROM base.documents WHERE id NOT IN (SELECT id FROM main.documents) ORDER BY id")
        while try removedDocuments.step() { changes.removedDocuments.append(Int(removedDocuments.int(0))) }
        let documents = try db.prepare("""
            SELECT n.id, n.path, n.title FROM main.documents n LEFT JOIN base.documents b ON b.id = n.id
            WHERE b.id IS NULL OR b.path <> n.path OR b.title <> n.title ORDER BY n.id
            """)
        while try documents.step() {
            changes.documents.append(.init(id: Int(documents.int(0)), path: documents.text(1), title: documents.text(2)))
        }
        let removed = try db.prepare("""
            SELECT b.id, b.pid FROM base.passages b LEFT JOIN main.passages n ON n.pid = b.pid WHERE n.id IS NULL ORDER BY b.id
            """)
        while try removed.step() { changes.removed.append(.init(row: Int(removed.int(0)), pid: removed.text(1))) }
        let rows = try db.prepare("""
            SELECT n.id, n.pid, n.document_id, n.ordinal, n.title, b.id, b.document_id, b.ordinal, b.title
            FROM main.passages n LEFT JOIN base.passages b ON b.pid = n.pid ORDER BY n.id
            """)
        let added = try db.prepare("SELECT section, text FROM main.passages WHERE id = ?1")
        while try rows.step() {
            let row = Int(rows.int(0)), pid = rows.text(1), document = Int(rows.int(2)), ordinal = Int(rows.int(3)), title = rows.text(4)
            guard !rows.isNull(5) else {
                defer { added.reset() }
                try added.bind(1, row)
                _ = try added.step()
                changes.rows.append(.init(row: row, pid: pid, document: document, ordinal: ordinal, title: title,
                                          section: added.text(0), text: added.text(1)))
                continue
            }
            let from = Int(rows.int(5))
            let sameDocument = Int(rows.int(6)) == document, sameOrdinal = Int(rows.int(7)) == ordinal, sameTitle = rows.text(8) == title
            if from == row && sameDocument && sameOrdinal && sameTitle { continue }
            changes.rows.append(.init(row: row, pid: pid, from: from, document: sameDocument ? nil : document,
                                      ordinal: sameOrdinal ? nil : ordinal, title: sameTitle ? nil : title))
        }
        return changes
    }

    /// Copies the given rows of a vector file, in order, into a new vector file at `output`.
    static func copyRows(_ rows: [Int], of path: String, to output: String) throws {
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw FormatError(error) }
        let h = try VectorFileHeader.decode(file.bytes, fileSize: file.size)
        let writer = try VectorFileWriter(path: output, encoding: h.encoding, dimension: h.dimension, rows: rows.count)
        for r in rows {
            let values = UnsafeRawBufferPointer(rebasing: file.bytes[(h.matrixOffset + r * h.rowBytes)...].prefix(h.rowBytes))
            switch h.encoding {
            case .int8:
                let scale = Float(bitPattern: UInt32(littleEndian: file.bytes.loadUnaligned(fromByteOffset: h.scalesOffset + r * 4, as: UInt32.self)))
                try writer.append(quantized: values.map { Int8(bitPattern: $0) }, scale: scale)
            case .f32:
                try writer.append((0..<h.dimension).map { i in
                    Float(bitPattern: UInt32(littleEndian: values.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                })
            }
        }
        try writer.finish()
    }
}
