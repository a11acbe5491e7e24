import CorpusCLIKit

/// The global options of `corpus`, accepted before or after the command (with the kit's
/// `--json`, `--quiet` and `--help`).
extension Option {
    static let home = Option.path("--home", "DIR", "home folder (default: $CORPUS_HOME, else $XDG_DATA_HOME/corpus)")
    static let offline = Option.flag("--offline", "no network at all: work from what the home holds (default: on when $CORPUS_OFFLINE is 1)")
    static let limitRate = Option.text("--limit-rate", "RATE", "cap download speed for the whole command, parallel downloads included, as curl's: 2M, 500K or bytes per second (default: config.json's limit_rate)")
    static let token = Option.text("--token", "TOKEN", "entitlement token (default: $CORPUS_TOKEN, else the one stored by `corpus login`)")
}
