/// The passage pack's schema (docs/format.md, "Passage pack"), in one place for every writer
/// and reader: the publisher and test fixtures create it, the engine checks packs against it.
public enum PackSchema {
    public static let format = "1"

    /// The DDL of a format-1 pack, in order. No triggers, no views: readers refuse packs with either.
    public static let statements: [String] = [
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
        "CREATE TABLE documents(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, title TEXT NOT NULL)",
        """
        CREATE TABLE passages(id INTEGER PRIMARY KEY, pid TEXT NOT NULL UNIQUE, \
        document_id INTEGER NOT NULL REFERENCES documents(id), ordinal INTEGER NOT NULL, \
        title TEXT NOT NULL, section TEXT NOT NULL, text TEXT NOT NULL)
        """,
        """
        CREATE VIRTUAL TABLE passages_fts USING fts5(title, section, text, content='passages', \
        content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')
        """,
    ]

    /// Tables a reader needs (FTS5's shadow tables come with `passages_fts`).
    public static let requiredTables = ["meta", "documents", "passages", "passages_fts"]

    /// Keys of the `meta` table.
    public enum Meta {
        public static let format = "format"
        public static let corpusID = "corpus_id"
        public static let corpusVersion = "corpus_version"
        public static let embedderID = "embedder_id"
        public static let embedderDimension = "embedder_dimension"
        public static let documents = "documents"
        public static let passages = "passages"
    }

    /// Run after all rows are in: fills the external-content FTS index, merges its segments,
    /// and leaves a compact file in rollback-journal (DELETE) mode, as the format requires.
    public static let finishStatements: [String] = [
        "INSERT INTO passages_fts(passages_fts) VALUES('rebuild')",
        "INSERT INTO passages_fts(passages_fts) VALUES('optimize')",
        "PRAGMA journal_mode=DELETE",
        "VACUUM",
    ]
}
