import Foundation

/// Runs independent iterations on a bounded number of cores.
public enum Workers {
    /// Every core this process may use.
    public static var all: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Calls `body` for every index in `0..<count`, on at most `width` threads at once; each
    /// thread takes every `width`-th index, so neighbouring (similar) items spread evenly.
    public static func forEach(_ count: Int, width: Int, _ body: @Sendable (Int) -> Void) {
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
    public final class Slots<Value>: @unchecked Sendable {
        private let values: UnsafeMutableBufferPointer<Value?>

        public init(count: Int) {
            values = .allocate(capacity: count)
            values.initialize(repeating: nil)
        }

        deinit {
            values.deinitialize()
            values.deallocate()
        }

        public func set(_ i: Int, _ value: Value) { values[i] = value }

        public func take(_ i: Int) -> Value? {
            defer { values[i] = nil }
            return values[i]
        }
    }
}
