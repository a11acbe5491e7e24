import Foundation

/// Where the commands write: results to stdout, progress and refusals to stderr.
/// With `json` set, results are one JSON object and progress is JSON lines.
public final class Console: @unchecked Sendable {
    public let json: Bool
    public let quiet: Bool
    public let isTerminal: Bool
    private let lock = NSLock()

    public init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
        self.isTerminal = isatty(STDERR_FILENO) == 1
    }

    public func out(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Human-readable information; suppressed by `--quiet` and `--json`.
    public func info(_ line: String) {
        guard !quiet && !json else { return }
        write(line + "\n", to: STDOUT_FILENO)
    }

    public func err(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Raw text to stderr (progress bars redraw with `\r`).
    public func progress(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Prints an encodable value as one JSON object on stdout.
    public func emit(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        write(String(decoding: data, as: UTF8.self) + "\n", to: STDOUT_FILENO)
    }

    public func emitLine(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        write(String(decoding: data, as: UTF8.self) + "\n", to: STDERR_FILENO)
    }

    private func write(_ text: String, to fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue } else { return } }
            offset += n
        }
    }
}
