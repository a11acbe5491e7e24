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
        self.client = client
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
