import Foundation

/// A fresh folder under the system temp directory, removed when the value is deinitialized.
public final class TempDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "test") {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let template = "\(base)/corpussync-\(label)-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let p = mkdtemp(&bytes) else { fatalError("mkdtemp failed for \(template)") }
        path = String(cString: p)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path/relative`, creating no files.
    public func url(_ relative: String) -> String { "\(path)/\(relative)" }

    /// Writes a file (creating parent folders) and returns its path.
    @discardableResult
    public func write(_ relative: String, _ contents: String) throws -> String {
        try write(relative, Data(contents.utf8))
    }

    @discardableResult
    public func write(_ relative: String, _ data: Data) throws -> String {
        let full = url(relative)
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
        return full
    }
}
