import Foundation

/// Why a server could not start.
public enum ServerError: Error, Equatable, Sendable {
    case rootUnavailable(path: String, errno: Int32)
    case invalidListenAddress(String)
    case cannotListen(address: String, reason: String)
}

extension ServerError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .rootUnavailable(path, code): return "cannot serve \(path): \(String(cString: strerror(code)))"
        case let .invalidListenAddress(a): return "\(a.debugDescription) is not a listen address; use HOST:PORT with an IPv4 host, e.g. 127.0.0.1:8080"
        case let .cannotListen(address, reason): return "cannot listen on \(address): \(reason)"
        }
    }
    public var errorDescription: String? { description }
}
