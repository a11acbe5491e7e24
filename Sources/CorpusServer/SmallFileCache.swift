import Synchronization

/// The full `200` responses to plain GETs of small files of the tree, built once and sent again
/// for as long as the file is the same: a request for a cached file costs no look at the file (no
/// open, no read, no response built), which with libmicrohttpd's per-response allocations cost
/// more than the rest of the request.
///
/// An entry is kept with the identity (`FileIdentity`: device, inode, size, mtime and ctime) of
/// the file `StaticTree.open` reached when the response was built, and is used only while the
/// path, resolved by the same rules (no symlink, nothing above the root), names a file of equal
/// identity: a file replaced (rename) or rewritten in place, or a path that no longer resolves,
/// is a miss from the moment the change is made, and the request takes the full path again.
///
/// How a hit knows that: with a `TreeChangeWatch` (Linux), the file and each folder above it are
/// watched from before the entry goes in, and a hit first reads the watch's queue; a change on
/// a watched path there (or any mount change) empties the cache. Without one (or while another thread is reading that queue), a hit
/// looks at the file's identity now (`current`). Least recently used entries go first once
/// `byteLimit` or `entryLimit` would be passed.
final class SmallFileCache: Sendable {
    private final class Entry: Sendable {
        let identity: FileIdentity
        let response: PreparedResponse
        let bytes: Int
        /// `clock` at the last use: a hit stamps it without the cache's lock.
        let lastUse: Atomic<UInt64>

        init(identity: FileIdentity, response: PreparedResponse, bytes: Int, lastUse: UInt64) {
            self.identity = identity
            self.response = response
            self.bytes = bytes
            self.lastUse = Atomic(lastUse)
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        /// Counts the times everything was forgotten after a change: an entry built before one
        /// is not inserted after it.
        var generation: UInt64 = 0
    }

    /// Body bytes held in all.
    let byteLimit: Int
    /// Entries held at most (bounds the eviction scan, whatever the file sizes).
    let entryLimit: Int
    private let state = Mutex(State())
    private let clock = Atomic<UInt64>(0)

    #if os(Linux)
    private let watch: TreeChangeWatch?
    /// Threads between the start of their read of the watch's queue and the end of emptying the
    /// cache for what they read. While another is there, an event this thread's read did not
    /// find may be in that thread's hands, not yet acted on: the hit then looks at the file.
    private let readingChanges = Atomic<Int>(0)

    init(byteLimit: Int, entryLimit: Int = 1024, watch: TreeChangeWatch? = nil) {
        self.byteLimit = max(0, byteLimit)
        self.entryLimit = max(1, entryLimit)
        self.watch = watch
    }
    #else
    init(byteLimit: Int, entryLimit: Int = 1024) {
        self.byteLimit = max(0, byteLimit)
        self.entryLimit = max(1, entryLimit)
    }
    #endif

    var isEnabled: Bool { byteLimit > 0 }

    /// True when hits learn of changes from a `TreeChangeWatch` rather than by looking at the file.
    var watchesChanges: Bool {
        #if os(Linux)
        return watch != nil
        #else
        return false
        #endif
    }

    /// The cached response for `path` if there is one and the file is still the one it was built
    /// from: nothing watched changed, or `current()` (the file's identity now) is its identity.
    func response(path: String, current: () -> FileIdentity?) -> PreparedResponse? {
        guard isEnabled else { return nil }
        #if os(Linux)
        if let watch {
            readingChanges.add(1, ordering: .sequentiallyConsistent)
            defer { readingChanges.subtract(1, ordering: .sequentiallyConsistent) }
            if watch.takeChanges() {
                forgetAll(watch)
                return nil
            }
            guard let entry = state.withLock({ $0.entries[path] }) else { return nil }
            guard readingChanges.load(ordering: .sequentiallyConsistent) == 1 || current() == entry.identity else { return nil }
            return used(entry)
        }
        #endif
        guard let entry = state.withLock({ $0.entries[path] }), current() == entry.identity else { return nil }
        return used(entry)
    }

    private func used(_ entry: Entry) -> PreparedResponse {
        entry.lastUse.store(clock.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
        return entry.response
    }

    #if os(Linux)
    private func forgetAll(_ watch: TreeChangeWatch) {
        let dropped = state.withLock { s -> [String: Entry] in
            defer {
                s.entries.removeAll()
                s.bytes = 0
                s.generation &+= 1
                watch.forgetAll()
            }
            return s.entries
        }
        withExtendedLifetime(dropped) {}
    }
    #endif

    /// Keeps `response` (a full 200 for the file of `identity` at `path`, reached by `segments`,
    /// `bytes` of body) unless it alone is larger than the cache, or the path no longer names
    /// that file (`current`) once it is watched.
    func insert(path: String, segments: [String], identity: FileIdentity, response: PreparedResponse, bytes: Int,
                current: () -> FileIdentity?) {
        guard isEnabled, bytes <= byteLimit else { return }
        let generation = state.withLock { $0.generation }
        #if os(Linux)
        // Watched first, then looked at: a change before the watch is seen by the look, one after
        // it by the next read of the queue.
        if let watch {
            guard watch.watch(segments), current() == identity else { return }
        }
        #endif
        // Evicted responses are released after the lock (MHD_destroy_response takes one of its own).
        let entry = Entry(identity: identity, response: response, bytes: bytes, lastUse: clock.add(1, ordering: .relaxed).newValue)
        let evicted = state.withLock { s -> [Entry] in
            var evicted: [Entry] = []
            guard s.generation == generation else { return evicted }
            if let old = s.entries.removeValue(forKey: path) {
                s.bytes -= old.bytes
                evicted.append(old)
            }
            while !s.entries.isEmpty, s.bytes + bytes > byteLimit || s.entries.count >= entryLimit {
                let oldest = s.entries.min { $0.value.lastUse.load(ordering: .relaxed) < $1.value.lastUse.load(ordering: .relaxed) }!
                s.entries[oldest.key] = nil
                s.bytes -= oldest.value.bytes
                evicted.append(oldest.value)
            }
            s.entries[path] = entry
            s.bytes += bytes
            return evicted
        }
        withExtendedLifetime(evicted) {}
    }
}
