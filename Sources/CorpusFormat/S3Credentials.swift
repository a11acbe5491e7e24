import Foundation

/// An S3 access key pair (and session token), read from where AWS tools read it: the
/// environment variables `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`,
/// else the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default
/// `~/.aws/credentials`) under the profile `AWS_PROFILE` (default `default`). Never from a
/// command line, where every user of the machine can read it.
///
/// No description, debug description or reflection of this value shows the secret or the
/// session token; only the access key id's last four characters appear.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "S3 credentials (access key …\(accessKeyID.suffix(4)), secret redacted\(sessionToken == nil ? "" : ", session token redacted"))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": "…\(accessKeyID.suffix(4))"]) }

    /// The credentials the environment names, else those of the shared credentials file.
    public static func load(environment: [String: String]) throws(S3ConfigurationError) -> S3Credentials {
        let id = environment["AWS_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = environment["AWS_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        switch (id, secret) {
        case let (id?, secret?):
            return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
        case (.some, nil):
            throw .credentialsMissing(tried: "the environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
        case (nil, .some):
            throw .credentialsMissing(tried: "the environment: AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not")
        case (nil, nil):
            break
        }
        let profile = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let path: String
        if let named = environment["AWS_SHARED_CREDENTIALS_FILE"], !named.isEmpty {
            path = named
        } else if let home = environment["HOME"], !home.isEmpty {
            path = "\(home)/.aws/credentials"
        } else {
            throw .credentialsMissing(tried: "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; no HOME or AWS_SHARED_CREDENTIALS_FILE to find a credentials file")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw .credentialsMissing(tried: "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .credentialsFile(path: path, reason: "it cannot be read as UTF-8 text")
        }
        return try parseFile(text, profile: profile, path: path)
    }

    /// The `[profile]` section of an INI-style credentials file (`aws_access_key_id = …`).
    static func parseFile(_ text: String, profile: String, path: String) throws(S3ConfigurationError) -> S3Credentials {
        var section: String?
        var values: [String: String] = [:]
        var found = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if section == profile { found = true }
                continue
            }
            guard section == profile, let eq = line.firstIndex(of: "=") else { continue }
            let name = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            values[name] = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
        }
        guard found else { throw .credentialsFile(path: path, reason: "it has no [\(profile)] section (AWS_PROFILE picks another)") }
        guard let id = values["aws_access_key_id"], !id.isEmpty else {
            throw .credentialsFile(path: path, reason: "its [\(profile)] section has no aws_access_key_id")
        }
        guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            throw .credentialsFile(path: path, reason: "its [\(profile)] section has no aws_secret_access_key")
        }
        let token = values["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    /// The region requests are signed for: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`.
    public static func region(environment: [String: String]) -> String {
        for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let r = environment[name], !r.isEmpty { return r }
        }
        return "us-east-1"
    }
}
