import Foundation
import CorpusCLIKit
import CorpusFormat

/// `corpusd token issue --key KEY --sub SUBJECT (--corpora A,B | --tier T) (--aud CATALOG_ID | --catalog PUBLIC_DIR)
/// [--expires DURATION] [--import-limit N]`
///
/// The audience names the catalog a token is good for (design.md §4): give it as `--aud CATALOG_ID`,
/// or let `--catalog PUBLIC_DIR` read the id from the tree's `catalog.json`. One of them is
/// required: servers refuse a token without `aud` (docs/format.md), so one is never issued.
enum TokenCommand: ServerCommand {
    static let spec = CommandSpec(
        ["token", "issue"],
        "--key KEY --sub SUBJECT (--corpora A,B | --tier T) (--aud CATALOG_ID | --catalog PUBLIC_DIR) [--expires DURATION] [--import-limit N]",
        "print an entitlement token (EdDSA JWT) signed with KEY",
        options: [.value("--key", "minisign secret key (from corpusd keygen)"),
                  .value("--sub", "who the token is for (user or account id)"),
                  .value("--corpora", "comma-separated corpus ids it covers"),
                  .value("--tier", "comma-separated catalog tiers it covers"),
                  .value("--expires", "lifetime, e.g. 90s, 12h, 30d, 2w, \(DurationOption.tokenLifetime.bounds) (default 30d)"),
                  .value("--import-limit", "how many non-bundled corpora the holder may install (0 to \(importLimits.upperBound))"),
                  .value("--aud", "the catalog id the token is for"),
                  .value("--catalog", "a published tree to read the catalog id from (instead of --aud)"),
                  .value("--iss", "issuer name (default corpusd)")],
        required: ["--key", "--sub"])

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

    static func run(_ cmd: ParsedCommand, _ console: Console) throws {
        let corpora = list(cmd.value("--corpora")), tiers = list(cmd.value("--tier"))
        guard !corpora.isEmpty || !tiers.isEmpty else { throw UsageError.missingRequired("--corpora or --tier", command: "token issue") }
        for (option, names) in [("--corpora", corpora), ("--tier", tiers)] {
            for name in names where !Identifier.isValid(name) {
                throw UsageError.invalidValue(option: option, value: name, expected: "a valid id (1-64 of a-z 0-9 . _ -, starting with a letter or digit)")
            }
        }
        let subject = try printable(cmd.value("--sub")!, option: "--sub")
        let issuer = try printable(cmd.value("--iss") ?? "corpusd", option: "--iss")
        let lifetime = try cmd.value("--expires").map { try DurationOption.tokenLifetime.parse($0) } ?? defaultLifetime
        var limit: Int?
        if let l = cmd.value("--import-limit") {
            guard let n = Int(l), importLimits.contains(n) else {
                throw UsageError.invalidValue(option: "--import-limit", value: l,
                                              expected: "a whole number of corpora from \(importLimits.lowerBound) to \(importLimits.upperBound)")
            }
            limit = n
        }
        let audience = try audience(cmd)
        let key = try SecretKey(contentsOf: cmd.value("--key")!)
        let token = try EntitlementToken.issue(key: key, issuer: issuer, subject: subject, audience: audience,
                                               corpora: corpora, tiers: tiers, importLimit: limit, lifetime: lifetime)
        if console.json {
            var o: [String: Any] = ["token": token.compact, "aud": audience, "sub": subject, "jti": token.claims.tokenID ?? "",
                                    "expires": Timestamp.format(token.claims.expiresAt), "corpora": corpora, "tiers": tiers]
            if let limit { o["import_limit"] = limit }
            console.emit(o)
        } else {
            console.out(token.compact)
        }
    }

    private static func audience(_ cmd: ParsedCommand) throws -> String {
        switch (cmd.value("--aud"), cmd.value("--catalog")) {
        case let (aud?, nil):
            guard Identifier.isValid(aud) else { throw UsageError.invalidValue(option: "--aud", value: aud, expected: "a catalog id") }
            return aud
        case let (nil, dir?):
            let path = "\(dir)/\(TreeLayout.pointer)"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ErrorReport(code: "not-found", message: "\(path) does not exist", hint: "give the folder `corpusd publish --out` wrote, or use --aud", exit: .notFound)
            }
            let pointer = try CanonicalJSON.decode(CatalogPointer.self, from: data, what: path)
            try Identifier.validate(pointer.id, what: "catalog id in \(path)")
            return pointer.id
        case (.some, .some):
            throw UsageError.invalidValue(option: "--catalog", value: cmd.value("--catalog")!, expected: "used together with --aud; give one of them")
        case (nil, nil):
            throw UsageError.missingRequired("--aud CATALOG_ID or --catalog PUBLIC_DIR", command: "token issue")
        }
    }

    private static func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
