import Synchronization

/// The full `200` responses to plain GETs of small files of the tree, built once and sent again
/// for as long as the file is the same: a request for a cached file costs a look at the file's
/// identity (`StaticTree.currentIdentity`: no read, no response built) instead of opening,
/// reading and closing the file and building the response and its header fields anew, which
/// with libmicrohttpd's per-response allocations cost more than the rest of the request.
///
/// An entry is kept with the identity (`FileIdentity`: device, inode, size, mtime and ctime) of
/// the file `StaticTree.open` reached when the response was built, and is used only while the
/// path, resolved by the same rules (no symlink, nothing above the root), names a file of equal
/// identity: a file replaced (rename) or rewritten in place, or a path that no longer resolves,
/// is a miss, and the request takes the full path again. Least recently used entries go first
/// once `byteLimit` or `entryLimit` would be passed.
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
    }

    /// Body bytes held in all.
    let byteLimit: Int
    /// Entries held at most (bounds the eviction scan, whatever the file sizes).
    let entryLimit: Int
    private let state = Mutex(State())
    private let clock = Atomic<UInt64>(0)

    init(byteLimit: Int, entryLimit: Int = 1024) {
        self.byteLimit = max(0, byteLimit)
        self.entryLimit = max(1, entryLimit)
    }

    var isEnabled: Bool { byteLimit > 0 }

    /// The cached response for `path` if there is one and `current()` (the file's identity now)
    /// is the identity it was built for.
    func response(path: String, current: () -> FileIdentity?) -> PreparedResponse? {
        guard isEnabled, let entry = state.withLock({ $0.entries[path] }), current() == entry.identity else { return nil }
        entry.lastUse.store(clock.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
        return entry.response
    }

    /// Keeps `response` (a full 200 for the file of `identity` at `path`, `bytes` of body) unless
    /// it alone is larger than the cache.
    func insert(path: String, identity: FileIdentity, response: PreparedResponse, bytes: Int) {
        guard isEnabled, bytes <= byteLimit else { return }
        // Evicted responses are released after the lock (MHD_destroy_response takes one of its own).
        let entry = Entry(identity: identity, response: response, bytes: bytes, lastUse: clock.add(1, ordering: .relaxed).newValue)
        let evicted = state.withLock { s -> [Entry] in
            var evicted: [Entry] = []
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
