import CorpusFormat

/// A refusal as the user sees it: a code, one line of what and why, a hint of what to do, and
/// its kind, which decides the exit code (`FailureKind.exitCode`).
public struct ErrorReport: Error, Sendable {
    public let code: String
    public let message: String
    public let hint: String
    public let kind: FailureKind

    public init(code: String, message: String, hint: String, kind: FailureKind) {
        self.code = code
        self.message = message
        self.hint = hint
        self.kind = kind
    }

    public var exit: ExitCode { kind.exitCode }

    /// The one place errors become reports: the kit's own (usage) and CorpusFormat's, and through
    /// `domain` those of the libraries an executable links (each CLI module maps its own, since
    /// the hints name its commands). Anything else is an unexpected failure.
    public static func from(_ error: Error, domain: (Error) -> ErrorReport?) -> ErrorReport {
        switch error {
        case let e as ErrorReport:
            return e
        case let e as UsageError:
            return ErrorReport(code: "usage", message: e.description, hint: "run with --help to see the commands and their options", kind: .usage)
        default:
            break
        }
        if let report = domain(error) { return report }
        switch error {
        case let e as FormatError:
            return from(format: e)
        case let e as EntitlementTokenError:
            return ErrorReport(code: "token-\(e.code)", message: "entitlement token refused: \(e)",
                               hint: "get a new token from the publisher", kind: .entitlement)
        default:
            return ErrorReport(code: "failed", message: String(describing: error), hint: "", kind: .failure)
        }
    }

    static func from(format e: FormatError) -> ErrorReport {
        switch e {
        case .io:
            return ErrorReport(code: "io", message: e.description, hint: "check the path, its permissions and free space", kind: .localIO)
        case .crypto:
            return ErrorReport(code: "crypto", message: e.description, hint: "this is a bug or a broken OpenSSL install", kind: .failure)
        case .unsupported:
            return ErrorReport(code: "unsupported", message: e.description, hint: "upgrade corpus, or ask the publisher for a supported format", kind: .verification)
        case .signatureMissing, .signatureInvalid, .keyIDMismatch, .untrustedKey:
            return ErrorReport(code: "signature", message: e.description, hint: "the file was not signed by a key you trust; get it from the publisher again or check the pinned key", kind: .verification)
        case .hashMismatch, .sizeMismatch, .sizeExceeded:
            return ErrorReport(code: "integrity", message: e.description, hint: "the file was damaged or tampered with; download it again", kind: .verification)
        default:
            return ErrorReport(code: "unsafe-input", message: e.description, hint: "the file is damaged or crafted; do not use it", kind: .verification)
        }
    }
}
