import Foundation
import Dispatch

/// Reads a zip member on a helper thread, one chunk ahead of the caller.
///
/// libzip computes the member's CRC-32 inside `zip_fread`, and the caller runs SHA-256 over the
/// same bytes; done one after the other they cost about 1.5x what SHA-256 alone costs. With two
/// buffers the helper reads (and CRCs) chunk k+1 while the caller hashes and writes chunk k.
/// The helper never reads more than `limit` bytes in total, so a zip bomb cannot run ahead.
final class ZipEntryPipeline: @unchecked Sendable {
    // @unchecked: `buffers[i]`, `counts[i]` and `errors[i]` are handed back and forth with the
    // `free`/`filled` semaphores, so exactly one thread touches a slot at a time; `cancelled` is
    // behind a lock.
    private let reader: ZipEntryReader
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var counts = [0, 0]
    private var errors: [Error?] = [nil, nil]
    private let limit: Int64
    // Semaphores start at zero and are signalled up, because libdispatch traps when a semaphore
    // is freed with a value below its initial one.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var cancelled = false

    init(reader: ZipEntryReader, chunkSize: Int, limit: Int64) {
        self.reader = reader
        self.limit = limit
        buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64) }
    }

    deinit { buffers.forEach { $0.deallocate() } }

    /// Calls `body` with each chunk in order until the member ends (libzip's CRC and size checks
    /// passed) or `limit` bytes were delivered. Errors from either thread are thrown here, and the
    /// helper thread has stopped by the time this returns.
    func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let helper = Thread { [self] in produce() }
        helper.stackSize = 1 << 20
        free.signal()
        free.signal()
        helper.start()
        defer {
            lock.withLock { cancelled = true }
            free.signal()
            finished.wait()
        }
        var k = 0
        while true {
            filled.wait()
            let slot = k % 2
            if let error = errors[slot] { throw error }
            let n = counts[slot]
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffers[slot][0..<n]))
            free.signal()
            k += 1
        }
    }

    private func produce() {
        defer { finished.signal() }
        var k = 0
        var total: Int64 = 0
        while true {
            free.wait()
            if lock.withLock({ cancelled }) { return }
            let slot = k % 2
            let want = Int(min(Int64(buffers[slot].count), limit - total))
            do {
                counts[slot] = want > 0 ? try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffers[slot][0..<want])) : 0
            } catch {
                errors[slot] = error
            }
            let n = counts[slot]
            let stop = errors[slot] != nil || n == 0
            total += Int64(n)
            filled.signal()
            // At the limit, an empty chunk tells the caller the reader stopped there.
            if stop { return }
            k += 1
        }
    }
}
