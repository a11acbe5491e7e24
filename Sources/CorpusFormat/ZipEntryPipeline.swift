import Foundation
import Dispatch

/// Reads a zip member on a helper thread, one chunk ahead of the caller.
///
/// The zip reader computes the member's CRC-32 as it reads (libzip inside `zip_fread`), and the caller runs SHA-256 over the
/// same bytes; done one after the other they cost about 1.5x what SHA-256 alone costs. With two
/// buffers the helper reads (and CRCs) chunk k+1 while the caller hashes and writes chunk k.
/// The helper never reads more than `limit` bytes in total, so a zip bomb cannot run ahead.
final class ZipEntryPipeline: @unchecked Sendable {
    // @unchecked: each `Slot` is handed back and forth with the `free`/`filled` semaphores, so
    // exactly one thread touches a slot at a time; `cancelled` is behind a lock.
    //
    // The slots are objects in a `let` array, never two elements of one `var` array: writing
    // `counts[1]` on the helper while the caller reads `counts[0]` is a race on the array's
    // buffer itself (its copy-on-write check and reference count), which ThreadSanitizer reports
    // and which can free the buffer under the reader (ZipEntryPipelineTests).
    private final class Slot {
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0
        var error: Error?
        init(chunkSize: Int) { buffer = .allocate(byteCount: chunkSize, alignment: 64) }
        deinit { buffer.deallocate() }
    }

    private let reader: any ZipMemberStream
    private let slots: [Slot]
    private let limit: Int64
    // Semaphores start at zero and are signalled up, because libdispatch traps when a semaphore
    // is freed with a value below its initial one.
    private let free = DispatchSemaphore(value: 0)
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var cancelled = false

    init(reader: any ZipMemberStream, chunkSize: Int, limit: Int64) {
        self.reader = reader
        self.limit = limit
        slots = (0..<2).map { _ in Slot(chunkSize: chunkSize) }
    }

    /// Calls `body` with each chunk in order until the member ends (the reader's CRC and size checks
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
            let slot = slots[k % 2]
            if let error = slot.error { throw error }
            let n = slot.count
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: slot.buffer[0..<n]))
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
            let slot = slots[k % 2]
            let want = Int(min(Int64(slot.buffer.count), limit - total))
            do {
                slot.count = want > 0 ? try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: slot.buffer[0..<want])) : 0
            } catch {
                slot.error = error
            }
            let n = slot.count
            let stop = slot.error != nil || n == 0
            total += Int64(n)
            filled.signal()
            // At the limit, an empty chunk tells the caller the reader stopped there.
            if stop { return }
            k += 1
        }
    }
}
