import Foundation
import Synchronization

/// PUBLIC_DIR as the server sees it: the tree its path names now, with the cache of its small
/// files.
///
/// The folder is opened once (`StaticTree` holds it open, so that every file is reached beneath
/// the same root), and opened again by its path when the path names another folder: a deploy that
/// moves a new tree over the old one (`mv`), swaps a symlinked PUBLIC_DIR to a new tree, or mounts
/// one over it. That is noticed by a look at the path (one `stat`) at most once per
/// `checkInterval`, made by whichever request comes first after it; `reopen` (SIGHUP) opens it
/// again at once. While the path names no folder (between the two renames of a deploy by `mv`),
/// the tree opened before is kept.
///
/// Each opening has its own `SmallFileCache`: nothing read from the old tree is answered after
/// the new one is in place, and requests already under way finish on the tree they started with.
final class ServedTree: Sendable {
    /// One opening of the folder, with the cache of its small files.
    final class Opening: Sendable {
        let tree: StaticTree
        let cache: SmallFileCache

        init(_ tree: StaticTree, cacheBytes: Int) {
            self.tree = tree
            cache = tree.smallFileCache(byteLimit: cacheBytes)
        }
    }

    /// PUBLIC_DIR as given (a symlink stays a symlink: it is what a deploy swaps).
    let path: String
    private let cacheBytes: Int
    private let checkNanoseconds: UInt64
    private let held: Mutex<Opening>
    /// `DispatchTime` nanoseconds of the last look at the path.
    private let lastLook: Atomic<UInt64>

    init(path: String, cacheBytes: Int, checkInterval: Duration = .seconds(1)) throws(ServerError) {
        self.path = path
        self.cacheBytes = cacheBytes
        let (seconds, attoseconds) = checkInterval.components
        checkNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        held = Mutex(Opening(try StaticTree(path: path), cacheBytes: cacheBytes))
        lastLook = Atomic(DispatchTime.now().uptimeNanoseconds)
    }

    /// The opening to answer a request from, after looking at the path if `checkInterval` has
    /// passed since the last look (one request does; the others go on with what is held).
    func current() -> Opening {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = lastLook.load(ordering: .relaxed)
        if now &- last >= checkNanoseconds, lastLook.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
            let held = self.held.withLock { $0 }
            if !held.tree.isStill(at: path) { _ = try? reopen() }
        }
        return held.withLock { $0 }
    }

    /// Opens the folder the path names now and answers from it from here on (SIGHUP). On failure
    /// the tree held before is kept and the error says why.
    func reopen() throws(ServerError) {
        let opening = Opening(try StaticTree(path: path), cacheBytes: cacheBytes)
        // The one replaced is released after the lock: its cache holds prepared responses.
        let replaced = held.withLock { h -> Opening in
            defer { h = opening }
            return h
        }
        withExtendedLifetime(replaced) {}
    }
}
