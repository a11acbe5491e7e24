import CorpusFormat
import CorpusSync

/// What to say about an installed corpus that does not verify or open (`search`, `verify`).
enum RepairHint {
    /// What to do about an installed corpus that does not verify or open: `install` repairs it
    /// (it reinstalls a current version whose files fail their check); an import is imported again.
    static func repair(_ name: String) -> String {
        name.hasPrefix("\(HomeLayout.localRemote)/") ? "import its bundle again: corpus import FILE.corpus.zip" : "repair it with: corpus install \(name)"
    }

    static func verify(_ error: SyncError, _ name: String) -> String {
        error.localFileAdvice ?? repair(name)
    }
}
