import Foundation
import CorpusFormat

extension Workers {
    /// Cores for work beside a build's pack thread: all but one, at least one. SQLite's FTS5
    /// indexing runs on one core and is the build's longest step; when ingesting and embedding
    /// took every core, the pack thread got about two thirds of one and finished last.
    static var besidePack: Int { max(1, all - 1) }
}
