extension InstalledCorpus {
    /// The check an installer runs on an extracted version folder before it becomes visible: the
    /// folder opened exactly as searches will open it (no journal beside the pack, no triggers or
    /// views, tables and counts agreeing with the manifest, vectors matching), then SQLite's
    /// `quick_check` over every page, so a damaged pack is refused at install, not at query time.
    ///
    /// - Parameter remote: the remote the corpus is (or is being) installed from; errors name the
    ///   corpus `remote/id`.
    /// - Throws: `EngineError`, every failure of opening and checking included.
    public static func checkExtracted(folder: String, remote: String) throws {
        try InstalledCorpus(folder: folder, remote: remote).verifyIntegrity()
    }
}
