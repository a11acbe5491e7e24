import Foundation
import CorpusFormat

/// Where the commands write: results to stdout, progress and refusals to stderr.
/// With `json` set, results are one JSON object and progress is JSON lines.
///
/// The one gate to the terminal: every text line (`out`, `info`, `err`, `progress`) goes through
/// `TerminalText.sanitize`, so a catalog title, a manifest field, passage text or an error message
/// quoting any of them can never put a control sequence (ESC/CSI/OSC, C1, bidi overrides, a bare
/// CR) on the user's terminal, whichever command prints it and however it was formatted. Nothing
/// the program itself prints needs a control character, except the carriage return that redraws a
/// progress bar: that has its own method, `redraw`, which adds the CR itself around sanitized text.
/// JSON (`emit`, `emitLine`) is written exact: JSON escaping already makes it inert.
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
        write(TerminalText.sanitize(line) + "\n", to: STDOUT_FILENO)
    }

    /// Human-readable information; suppressed by `--quiet` and `--json`.
    public func info(_ line: String) {
        guard !quiet && !json else { return }
        write(TerminalText.sanitize(line) + "\n", to: STDOUT_FILENO)
    }

    public func err(_ line: String) {
        write(TerminalText.sanitize(line) + "\n", to: STDERR_FILENO)
    }

    /// Text to stderr as it is drawn (progress lines end with their own newline).
    public func progress(_ text: String) {
        write(TerminalText.sanitize(text), to: STDERR_FILENO)
    }

    /// Redraws the current stderr line (a progress bar): a carriage return, then `line` on one line.
    public func redraw(_ line: String) {
        write("\r" + TerminalText.sanitizeLine(line), to: STDERR_FILENO)
    }

    /// Prints a command's result as one JSON object on stdout.
    public func emit<T: Encodable>(_ value: T) {
        write(JSONOutput.string(value) + "\n", to: STDOUT_FILENO)
    }

    /// Writes a piece of one JSON document on stdout, exact: a result streamed as it is read
    /// (`catalog --json`), whose pieces together are what `emit` would print.
    public func emitFragment(_ json: String) {
        write(json, to: STDOUT_FILENO)
    }

    /// Prints one JSON line on stderr (a progress event).
    public func emitLine<T: Encodable>(_ value: T) {
        write(JSONOutput.string(value) + "\n", to: STDERR_FILENO)
    }

    private func write(_ text: String, to fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        var text = text
        // A closed stdout or stderr leaves nowhere to say so: the line is dropped.
        text.withUTF8 { try? FileIO.writeAll(fd, UnsafeRawBufferPointer($0), path: fd == STDOUT_FILENO ? "stdout" : "stderr") }
    }
}
