import Foundation

/// How `--json` output is written: `Encodable` result types, keys sorted, slashes not escaped,
/// compact. These are the bytes `JSONSerialization` wrote with `[.sortedKeys, .withoutEscapingSlashes]`
/// for the same values as long as every key is lowercase ASCII letters and `_` (the two order such
/// keys alike; `JSONShapeTests` pins each command's bytes).
public enum JSONOutput {
    /// One JSON document, without a newline; `{}` for a value JSON cannot hold (a NaN, as
    /// `JSONSerialization` would refuse it too).
    public static func data<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    public static func string<T: Encodable>(_ value: T) -> String {
        String(decoding: data(value), as: UTF8.self)
    }
}

/// An optional written as `null` when absent, where a shape promises the key (`"import_limit": null`);
/// a plain optional property leaves its key out.
public struct Nullable<Wrapped: Encodable & Sendable>: Encodable, Sendable {
    public let value: Wrapped?

    public init(_ value: Wrapped?) { self.value = value }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value { try c.encode(value) } else { try c.encodeNil() }
    }
}

/// The `{"code", "message", "hint"}` of a refusal, alone or inside a per-corpus result.
public struct ErrorBody: Encodable, Sendable {
    public let code: String
    public let message: String
    public let hint: String

    public init(_ report: ErrorReport) {
        self.init(code: report.code, message: report.message, hint: report.hint)
    }

    public init(code: String, message: String, hint: String) {
        self.code = code
        self.message = message
        self.hint = hint
    }
}

/// `{"error": {…}}`: a refused command with `--json`.
public struct RefusalOutput: Encodable, Sendable {
    public let error: ErrorBody

    public init(_ report: ErrorReport) { error = ErrorBody(report) }
}
