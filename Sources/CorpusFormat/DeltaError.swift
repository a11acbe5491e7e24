/// Why a delta was not applied (docs/client.md "Updates by delta"). Every case makes the client
/// fall back to the full bundle; none leaves anything of the delta behind.
public enum DeltaError: Error, Equatable, Sendable {
    /// The delta was made for another installed version or content than the one installed.
    case otherBase(reason: String)
    /// The delta names a base row, passage or document the installed version does not have.
    case baseMismatch(reason: String)
    /// What applying it produced is not what the new version's signed manifest says.
    case resultMismatch(what: String, expected: String, actual: String)
}

extension DeltaError: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .otherBase(reason): return "the delta was made for another installed version: \(reason)"
        case let .baseMismatch(reason): return "the delta names what the installed version does not have: \(reason)"
        case let .resultMismatch(what, expected, actual):
            return "applying the delta gave \(what) \(actual), the signed manifest says \(expected)"
        }
    }
}
