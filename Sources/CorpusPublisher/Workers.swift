import Foundation

/// Runs independent iterations on a bounded number of cores.
///
/// A build keeps one core for the pack thread (SQLite's FTS5 indexing runs on one core and is
/// the longest step); ingesting and embedding share the others. When they took every core, the
/// pack thread got about two thirds of one and finished last.
enum Workers {
    /// Cores for work beside the pack thread: all but one, at least one.
    static var besidePack: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }

    /// Calls `body` for every index in `0..<count`, on at most `width` threads at once; each
    /// thread takes every `width`-th index, so neighbouring (similar) items spread evenly.
    static func forEach(_ count: Int, width: Int, _ body: @Sendable (Int) -> Void) {
        let lanes = max(1, min(width, count))
        if lanes == 1 {
            for i in 0..<count { body(i) }
            return
        }
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in stride(from: lane, to: count, by: lanes) { body(i) }
        }
    }

    /// Results written by concurrent workers, each at its own index only, and read on one
    /// thread after they all finished (`forEach` returning orders the writes before the reads).
    final class Slots<Value>: @unchecked Sendable {
        private let values: UnsafeMutableBufferPointer<Value?>

        init(count: Int) {
            values = .allocate(capacity: count)
            values.initialize(repeating: nil)
        }

        deinit {
            values.deinitialize()
            values.deallocate()
        }

        func set(_ i: Int, _ value: Value) { values[i] = value }

        func take(_ i: Int) -> Value? {
            defer { values[i] = nil }
            return values[i]
        }
    }
}
