import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusSync

/// What every `corpus` command works with: the parsed command line, the console, the home folder
/// and a client for it, configured from the global options and the environment.
struct ClientContext: CommandContext {
    let cmd: ParsedCommand
    let console: Console
    let home: HomeLayout
    let client: CorpusClient
    /// A token that cannot be used (not a token's characters, from any source; a stored file that
    /// is not a token): refused by the commands that would use it, before anything is sent.
    let tokenRefusal: Error?
    /// A `--limit-rate` (or `limit_rate` in config.json) that is no rate: refused by every command.
    let settingsRefusal: Error?

    init(cmd: ParsedCommand, console: Console, environment: CommandEnvironment) {
        self.cmd = cmd
        self.console = console
        home = HomeLayout.resolve(explicit: cmd.value(.home), environment: environment.values)
        var token: String?
        var refusal: Error?
        do {
            if let flag = cmd.value(.token) {
                token = try TokenInput.flag.checked(flag)
            } else if let variable = environment.token {
                token = try TokenInput.environment.checked(variable)
            } else if let stored = CorpusClient.storedToken(home) {
                // `corpus login` stores only a token's characters: anything else is a damaged file
                // of the home (exit 7, with its repair), named without its content.
                if let problem = TokenSyntax.problem(stored) {
                    throw SyncError.localFileDamaged(path: home.token, reason: "it is not an entitlement token (\(problem))")
                }
                token = try CorpusClient.loadStoredToken(home)
            }
        } catch {
            refusal = error
        }
        tokenRefusal = refusal
        var client = CorpusClient(home: home, token: token, retry: RetryPolicy().scaled(by: environment.retryScale))
        // CORPUS_LOCK_WAIT: seconds to wait for another corpus process working on the same corpus (default 30).
        if let wait = environment.seconds("CORPUS_LOCK_WAIT", where: { $0 >= 0 }) {
            client.lockWait = wait == 0 ? .no : .upTo(seconds: wait)
        }
        // CORPUS_CATALOG_DEADLINE: seconds one catalog refresh may take in all (default 20).
        if let deadline = environment.seconds("CORPUS_CATALOG_DEADLINE", where: { $0 > 0 }) {
            client.catalogDeadline = deadline
        }
        // --offline or CORPUS_OFFLINE=1: no client makes a request (HTTPClient refuses to exist).
        client.httpConfiguration.offline = cmd.has(.offline) || environment.values["CORPUS_OFFLINE"] == "1"
        var settingsRefusal: Error?
        do {
            client.httpConfiguration.rateLimit = try Self.rateLimit(flag: cmd.value(.limitRate), home: home)
        } catch {
            settingsRefusal = error
        }
        self.settingsRefusal = settingsRefusal
        self.client = client
    }

    /// `--limit-rate RATE`, else `limit_rate` of config.json, else none. A configuration that does
    /// not load is left for the command to report.
    static func rateLimit(flag: String?, home: HomeLayout) throws -> RateLimit? {
        let expected = "a rate as curl's --limit-rate takes it, at least \(RateLimit.minimum) bytes per second: e.g. 2M, 500K, 65536"
        if let flag {
            guard let limit = RateLimit.parse(flag) else { throw UsageError.invalidValue(option: Option.limitRate.name, value: flag, expected: expected) }
            return limit
        }
        guard let text = (try? ClientConfig.load(home))?.limitRate else { return nil }
        guard let limit = RateLimit.parse(text) else {
            throw SyncError.localFileDamaged(path: home.config, reason: "limit_rate \(text.debugDescription) is not \(expected)")
        }
        return limit
    }
}

/// One `corpus` command: the kit's `Command` over a `ClientContext`.
protocol ClientCommand: Command where Context == ClientContext {
    /// True for the commands that read the token (to show locks, apply the import limit or
    /// download): they refuse a stored token that is damaged.
    static var readsToken: Bool { get }
}

extension ClientCommand {
    static var readsToken: Bool { false }

    var home: HomeLayout { context.home }
    var client: CorpusClient { context.client }
}
