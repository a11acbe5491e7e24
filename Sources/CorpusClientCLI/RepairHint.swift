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
        // The one write of verify: the index check of a pack it cannot write, made on a copy.
        if case let .insufficientSpace(path, needed, margin, _) = error {
            return "the pack cannot be written here (a read-only home), so its index is checked on a copy: "
                + "make \(needed + margin) bytes free in \(path) or set TMPDIR to a folder that has them, then run corpus verify again"
        }
        return error.localFileAdvice ?? repair(name)
    }
}
