import CorpusFormat

/// Where a command's entitlement token came from, and the one check every source gets before
/// the token is used (`TokenSyntax`). The stored token gets the same check in the client, as a
/// damaged file of the home folder.
public enum TokenInput: Sendable {
    case flag
    case environment
    /// The TOKEN of `corpus login TOKEN`.
    case argument

    /// How a refusal names the source.
    public var name: String {
        switch self {
        case .flag: return "--token"
        case .environment: return "CORPUS_TOKEN"
        case .argument: return "the TOKEN argument"
        }
    }

    /// `token` when its characters are a token's; otherwise a usage refusal (exit 2) that says
    /// which source and what is wrong, and never shows the token.
    public func checked(_ token: String) throws(ErrorReport) -> String {
        guard let problem = TokenSyntax.problem(token) else { return token }
        let fix: String
        switch self {
        case .flag, .argument: fix = "pass the token exactly as the publisher gave it"
        case .environment: fix = "set CORPUS_TOKEN to the token exactly as the publisher gave it"
        }
        throw ErrorReport(code: "token-syntax", message: "refused the token from \(name) before sending it: \(problem), which no token has (a token is base64url parts joined by dots)",
                          hint: fix, kind: .usage)
    }
}
