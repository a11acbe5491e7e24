import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus login TOKEN`, `corpus logout`: the entitlement token stored in the home folder.
struct LoginCommand: ClientCommand {
    static let spec = CommandSpec(["login"], "store an entitlement token in the home folder (mode 600)", positionals: .exactly("TOKEN"))

    let context: ClientContext

    func run() throws -> Int32 {
        let token = try TokenInput.argument.checked(cmd.positionals[0])
        let check: TokenCheck
        do { check = try client.checkToken(token) } catch let e as EntitlementTokenError {
            let hint = if case .malformed = e { "paste the whole token the publisher gave you" } else { "get a new token from the publisher" }
            throw ErrorReport(code: "token-\(e.code)", message: "login refused, nothing stored: \(e)", hint: hint, kind: .entitlement)
        }
        let claims: EntitlementClaims
        switch check {
        case let .verified(c, _): claims = c
        case let .unchecked(c, keyID):
            claims = c
            console.err("warning: no key pinned here can check this token's signature (key \(keyID ?? "unnamed")); the server checks it at the first entitled download")
        }
        try FileIO.createDirectory(home.root)
        try FileIO.writeAtomically(Data(token.utf8), to: home.token, mode: 0o600)
        if console.json {
            console.emit(Stored(token: .init(claims)))
        } else {
            let covers = (claims.corpora.map { "corpus \($0)" } + claims.tiers.map { "tier \($0)" }).joined(separator: ", ")
            console.info("stored a token for \(claims.subject) covering \(covers.isEmpty ? "nothing" : covers), expires \(Timestamp.format(claims.expiresAt))" +
                         (claims.importLimit.map { ", import limit \($0)" } ?? ""))
        }
        return 0
    }

    /// `{"token": {"subject", "expires", "corpora", "tiers", "import_limit"}}`: what the stored token covers.
    struct Stored: Encodable {
        struct Token: Encodable, Sendable {
            let subject: String
            let expires: String
            let corpora: [String]
            let tiers: [String]
            let importLimit: Nullable<Int>

            enum CodingKeys: String, CodingKey {
                case subject, expires, corpora, tiers
                case importLimit = "import_limit"
            }

            init(_ claims: EntitlementClaims) {
                subject = claims.subject
                expires = Timestamp.format(claims.expiresAt)
                corpora = claims.corpora
                tiers = claims.tiers
                importLimit = Nullable(claims.importLimit)
            }
        }

        let token: Token
    }
}

struct LogoutCommand: ClientCommand {
    static let spec = CommandSpec(["logout"], "remove the stored token")

    let context: ClientContext

    func run() -> Int32 {
        FileIO.remove(home.token)
        if console.json { console.emit(LogoutCommand.Removed(token: Nullable(nil))) } else { console.info("removed the stored token") }
        return 0
    }

    /// `{"token": null}`: no token is stored any more.
    struct Removed: Encodable {
        let token: Nullable<LoginCommand.Stored.Token>
    }
}
