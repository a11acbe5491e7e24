import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpusd token issue --key KEY --sub SUBJECT (--corpora A,B | --tier T) (--aud CATALOG_ID | --catalog PUBLIC_DIR)
/// [--expires DURATION] [--import-limit N]`
///
/// The audience names the catalog a token is good for (docs/format.md "Entitlement token"): give it as `--aud CATALOG_ID`,
/// or let `--catalog PUBLIC_DIR` read the id from the tree's `catalog.json`. One of them is
/// required: servers refuse a token without `aud` (docs/format.md), so one is never issued.
struct TokenCommand: ServerCommand {
    static let key = Option.path("--key", "KEY", "minisign secret key (from corpusd keygen)").required()
    static let sub = Option.text("--sub", "SUBJECT", "who the token is for (user or account id)").required()
    static let corpora = Option.text("--corpora", "A,B", "comma-separated corpus ids it covers")
    static let tier = Option.text("--tier", "T", "comma-separated catalog tiers it covers")
    static let aud = Option.text("--aud", "CATALOG_ID", "the catalog id the token is for")
    static let catalog = Option.path("--catalog", "PUBLIC_DIR", "a published tree to read the catalog id from (instead of --aud)")
    static let expires = Option.duration("--expires", .tokenLifetime, "lifetime, like 90s, 12h, 30d or 2w (default 30d)")
    static let importLimit = Option.integer("--import-limit", "N", in: importLimits, counting: "corpora", "how many non-bundled corpora the holder may install")
    static let iss = Option.text("--iss", "NAME", "issuer name (default corpusd)")
    static let spec = CommandSpec(["token", "issue"], "print an entitlement token (EdDSA JWT) signed with KEY",
                                  options: [key, sub, corpora, tier, aud, catalog, expires, importLimit, iss],
                                  oneOf: [[corpora, tier], [aud, catalog]])

    static let defaultLifetime: TimeInterval = 30 * 86400
    /// More corpora than anyone installs, and far below what a JSON number loses precision at.
    static let importLimits = 0...10_000

    /// A claim that ends up in a token and in servers' logs: 1-256 bytes, no control characters.
    private static func printable(_ value: String, option: String) throws -> String {
        guard !value.isEmpty, value.utf8.count <= 256, !TerminalText.containsUnsafe(value), !value.contains("\n"), !value.contains("\t") else {
            throw UsageError.invalidValue(option: option, value: value, expected: "1-256 printable characters")
        }
        return value
    }

    let context: ServerContext

    func run() throws -> Int32 {
        let corpora = Self.list(cmd.value(Self.corpora)), tiers = Self.list(cmd.value(Self.tier))
        guard !corpora.isEmpty || !tiers.isEmpty else { throw UsageError.missingRequired("\(Self.corpora.name) or \(Self.tier.name)", command: Self.spec.name) }
        for (option, names) in [(Self.corpora.name, corpora), (Self.tier.name, tiers)] {
            for name in names where !Identifier.isValid(name) {
                throw UsageError.invalidValue(option: option, value: name, expected: "a valid id (1-64 of a-z 0-9 . _ -, starting with a letter or digit)")
            }
        }
        let subject = try Self.printable(cmd.required(Self.sub), option: Self.sub.name)
        let issuer = try Self.printable(cmd.value(Self.iss) ?? "corpusd", option: Self.iss.name)
        let lifetime = cmd.duration(Self.expires) ?? Self.defaultLifetime
        let limit = cmd.int(Self.importLimit)
        let audience = try Self.audience(cmd)
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        let token = try EntitlementToken.issue(key: key, issuer: issuer, subject: subject, audience: audience,
                                               corpora: corpora, tiers: tiers, importLimit: limit, lifetime: lifetime)
        if console.json {
            console.emit(Issued(token: token.compact, aud: audience, sub: subject, jti: token.claims.tokenID ?? "",
                                expires: Timestamp.format(token.claims.expiresAt), corpora: corpora, tiers: tiers, importLimit: limit))
        } else {
            console.out(token.compact)
        }
        return 0
    }

    private static func audience(_ cmd: ParsedCommand) throws -> String {
        switch (cmd.value(Self.aud), cmd.value(Self.catalog)) {
        case let (aud?, nil):
            guard Identifier.isValid(aud) else { throw UsageError.invalidValue(option: Self.aud.name, value: aud, expected: "a catalog id") }
            return aud
        case let (nil, dir?):
            let path = "\(dir)/\(TreeLayout.pointer)"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ErrorReport(code: "not-found", message: "\(path) does not exist", hint: "give the folder `corpusd publish --out` wrote, or use \(Self.aud.name)", kind: .notFound)
            }
            let pointer = try CanonicalJSON.decode(CatalogPointer.self, from: data, what: path)
            try Identifier.validate(pointer.id, what: "catalog id in \(path)")
            return pointer.id
        case let (.some, dir?):
            throw UsageError.invalidValue(option: Self.catalog.name, value: dir, expected: "used together with \(Self.aud.name); give one of them")
        case (nil, nil):
            throw UsageError.missingRequired("\(Self.aud.synopsis) or \(Self.catalog.synopsis)", command: spec.name)
        }
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `{"token", "aud", "sub", "jti", "expires", "corpora", "tiers", "import_limit"?}`
    struct Issued: Encodable {
        let token: String
        let aud: String
        let sub: String
        let jti: String
        let expires: String
        let corpora: [String]
        let tiers: [String]
        /// Left out when the token has no import limit.
        let importLimit: Int?

        enum CodingKeys: String, CodingKey {
            case token, aud, sub, jti, expires, corpora, tiers
            case importLimit = "import_limit"
        }
    }
}
