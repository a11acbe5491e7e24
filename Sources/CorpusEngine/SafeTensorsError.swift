import Foundation

/// Why a `.safetensors` file could not be read.
public enum SafeTensorsError: Error, Equatable, Sendable {
    case io(operation: String, path: String, errno: Int32)
    /// The header or a tensor's extent is not what the format allows.
    case malformed(path: String, reason: String)
    case unsupportedDType(name: String, dtype: String)
}

extension SafeTensorsError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .io(operation, path, code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        case let .malformed(path, reason):
            return "\(path) is not a valid safetensors file: \(reason)"
        case let .unsupportedDType(name, dtype):
            return "tensor \(name) has dtype \(dtype); only F32 is supported"
        }
    }
    public var errorDescription: String? { description }
}
