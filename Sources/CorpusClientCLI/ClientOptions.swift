import CorpusCLIKit

/// The global options of `corpus`, accepted before or after the command (with the kit's
/// `--json`, `--quiet` and `--help`).
extension Option {
    static let home = Option.path("--home", "DIR", "home folder (default: $CORPUS_HOME, else $XDG_DATA_HOME/corpus)")
    static let token = Option.text("--token", "TOKEN", "entitlement token (default: $CORPUS_TOKEN, else the one stored by `corpus login`)")
}
