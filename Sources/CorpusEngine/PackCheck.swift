import Foundation

extension InstalledCorpus {
    /// The check an installer runs on an extracted version folder before it becomes visible: the
    /// folder opened exactly as searches will open it (no journal beside the pack, no triggers or
    /// views, tables and counts agreeing with the manifest, vectors matching), then SQLite's
    /// `quick_check` over every page, so a damaged pack is refused at install, not at query time.
    ///
    /// Throws `EngineError` (a SQLite failure comes as `.sqlite`, naming the corpus).
    public static func checkExtracted(folder: String) throws {
        do {
            try InstalledCorpus(folder: folder, remote: "staging").verifyIntegrity()
        } catch let e as SQLiteError {
            throw EngineError.sqlite(corpus: "staging/\((folder as NSString).lastPathComponent)", e)
        }
    }
}
