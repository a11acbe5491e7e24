import CorpusFormat
import Foundation

/// Builds the FTS5 index of a pack that ships without one (`Manifest.index == .install`,
/// docs/format.md "Index built at install"): the index is derived from the rows, which the bundle's
/// signed hash already covered, so building it here trusts nothing new. The pack is then this
/// client's own file (`InstallRecord.localPack`).
public enum PackIndexer {
    /// `rebuild` then `optimize` in one transaction, on the pack at `path` (a staging copy).
    public static func build(packAt path: String) throws {
        let db = try Database(path: path, mode: .update)
        try db.execute("PRAGMA journal_mode=MEMORY; PRAGMA cache_size=-65536")
        try db.transaction {
            try db.execute("INSERT INTO passages_fts(passages_fts) VALUES('rebuild')")
            try db.execute("INSERT INTO passages_fts(passages_fts) VALUES('optimize')")
        }
    }
}
