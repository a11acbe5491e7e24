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

    /// Optional tables (docs/format.md, "Optional tables"), each created with its first row, so a
    /// pack without such metadata has the format's four tables only. Imports keep what the other
    /// apps know about a document or passage here (timestamps, urls, importance weights) and the
    /// user's highlights. Readers that do not know them ignore them: the pack check asks for
    /// `requiredTables` and refuses triggers and views, never an extra table or index.
    public static let documentMetaStatements: [String] = [
        """
        CREATE TABLE document_meta(document_id INTEGER NOT NULL REFERENCES documents(id), key TEXT NOT NULL, \
        value TEXT NOT NULL, PRIMARY KEY(document_id, key)) WITHOUT ROWID
        """,
        "CREATE INDEX document_meta_by_key ON document_meta(key, value)",
    ]

    public static let passageMetaStatements: [String] = [
        """
        CREATE TABLE passage_meta(passage_id INTEGER NOT NULL REFERENCES passages(id), key TEXT NOT NULL, \
        value TEXT NOT NULL, PRIMARY KEY(passage_id, key)) WITHOUT ROWID
        """,
        "CREATE INDEX passage_meta_by_key ON passage_meta(key, value)",
    ]

    public static let highlightsStatements: [String] = [
        """
        CREATE TABLE highlights(id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL REFERENCES documents(id), \
        passage_id INTEGER REFERENCES passages(id), text TEXT NOT NULL, prefix TEXT NOT NULL, suffix TEXT NOT NULL, created TEXT)
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
        /// Optional: `source` when passage ids are an imported source's own (docs/format.md).
        public static let passageIDs = "passage_ids"
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
