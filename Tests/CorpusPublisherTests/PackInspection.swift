import Foundation
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

/// A built bundle's pack, unpacked with the bundle reader and looked at with the real `sqlite3`:
/// what a reader of the published bundle could get out of it. A pack that ships without its index
/// (the default) is indexed first, as a client does at install (`PackIndexer`).
struct PackInspection {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let work = TempDirectory("pack-inspection")
    let pack: String

    init(bundle: String, key: PublicKey) throws {
        let manifest = try BundleReader(path: bundle).extract(to: work.url("unpacked"), trustedKeys: [key])
        pack = work.url("unpacked/pack.sqlite")
        if manifest.index == .install { try PackIndexer.build(packAt: pack) }
    }

    /// Everything in the pack as SQL text (`sqlite3 PACK .dump`), plus its raw bytes decoded loosely,
    /// so a string is found whether it sits in a row, the FTS index or a free page.
    func everything() throws -> String {
        let dump = try ProcessRunner.run("sqlite3", ["-readonly", pack, ".dump"])
        guard dump.status == 0 else { throw Failure(description: "sqlite3 .dump: \(dump.stderr)") }
        let raw = String(decoding: try Data(contentsOf: URL(fileURLWithPath: pack)), as: UTF8.self)
        return dump.stdout + "\n" + raw
    }

    /// Paths of the documents table, in id order.
    func documentPaths() throws -> [String] {
        try sqlite("SELECT path FROM documents ORDER BY id")
    }

    /// Texts of the passages an FTS5 query matches (`sqlite3`, the pack's own index).
    func matching(_ query: String) throws -> [String] {
        let escaped = query.replacingOccurrences(of: "'", with: "''")
        return try sqlite("SELECT p.text FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid WHERE passages_fts MATCH '\(escaped)' ORDER BY p.id")
    }

    func sqlite(_ sql: String) throws -> [String] {
        try SQLiteShell.rows(pack, sql)
    }
}
