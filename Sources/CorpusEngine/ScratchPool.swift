import Foundation

/// Scratch buffers kept for the next call. A chunk of 2048 tokens needs about 19 MB of scratch at
/// 384 wide; allocated afresh for every call, the allocator handed those pages back to the kernel
/// when freed and every call faulted them in again, zeroed (2 % of all-MiniLM-L6-v2's passage
/// time in `perf`, twice bge-small's share: a six-layer pass has half as much work to hide it in).
/// At most one set a core is kept (as many as can run at once); the rest are freed.
final class ScratchPool: @unchecked Sendable {
    private let lock = NSLock()
    private var free: [BERTEncoder.Scratch] = []
    private let capacity = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Sets allocated since the pool was made (for tests: reuse shows as no new set).
    private(set) var allocated = 0

    /// Sets kept for later calls.
    var kept: Int {
        lock.lock()
        defer { lock.unlock() }
        return free.count
    }

    /// A free set that holds this many tokens, or a new one.
    func take(tokens: Int, longest: Int, c: BERTConfiguration) -> BERTEncoder.Scratch {
        lock.lock()
        defer { lock.unlock() }
        if let i = free.firstIndex(where: { $0.fits(tokens: tokens, longest: longest) }) { return free.remove(at: i) }
        allocated += 1
        return BERTEncoder.Scratch(tokens: tokens, longest: longest, c: c)
    }

    /// Keeps `scratch` for a later call, freeing the smallest set when more than one a core are kept.
    func give(_ scratch: BERTEncoder.Scratch) {
        lock.lock()
        defer { lock.unlock() }
        free.append(scratch)
        if free.count > capacity, let i = free.indices.min(by: { free[$0].tokens < free[$1].tokens }) {
            free.remove(at: i).deallocate()
        }
    }

    deinit { for s in free { s.deallocate() } }
}
