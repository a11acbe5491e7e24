/// Exit codes of both commands (design.md section 5); errors map to these in `ErrorReport` only.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    case verification = 3
    case entitlement = 4
    case network = 5
    case notFound = 6
    case localIO = 7
}
