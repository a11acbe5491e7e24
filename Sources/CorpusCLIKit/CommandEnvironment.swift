/// The environment variables both executables read, in one place.
public struct CommandEnvironment: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String]) { self.values = values }

    /// `CORPUS_TOKEN`, when set and not empty.
    public var token: String? { values["CORPUS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } }

    /// `CORPUS_RETRY_SCALE` (tests): multiplies every retry back-off; 1 when unset.
    public var retryScale: Double { values["CORPUS_RETRY_SCALE"].flatMap(Double.init) ?? 1 }

    /// A number of seconds in `name`, when set, a number, and accepted by `valid`.
    public func seconds(_ name: String, where valid: (Double) -> Bool) -> Double? {
        values[name].flatMap(Double.init).flatMap { valid($0) ? $0 : nil }
    }
}
