import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The one `flock` lock (`FileLock`): the client's locks, the publisher's tree lock and the
/// mirror's folder lock. flock locks belong to the open file, so a second open in this process
/// conflicts exactly like another process would.
@Suite struct FileLockTests {
    @Test func anExclusiveLockFileIsCreatedHeldAndNamesItsHolder() throws {
        let dir = TempDirectory("lock")
        let path = dir.url("a.lock")
        let lock = try FileLock(file: path)
        #expect(lock.path == path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\(getpid())\n")
        #expect(throws: FileLockError.held(path: path)) { try FileLock(file: path) }
        #expect(throws: FileLockError.held(path: path)) { try FileLock(file: path, mode: .shared) }
        withExtendedLifetime(lock) {}
    }

    @Test func sharedHoldersShareAndKeepAnExclusiveOneOut() throws {
        let dir = TempDirectory("lock")
        let path = dir.url("downloads.lock")
        let a = try FileLock(file: path, mode: .shared)
        let b = try FileLock(file: path, mode: .shared)
        #expect(throws: FileLockError.held(path: path)) { try FileLock(file: path, mode: .exclusive) }
        a.release()
        #expect(throws: FileLockError.held(path: path)) { try FileLock(file: path, mode: .exclusive) }
        b.release()
        _ = try FileLock(file: path, mode: .exclusive)
    }

    @Test func releaseFreesTheLockAtOnceAndTwiceIsHarmless() throws {
        let dir = TempDirectory("lock")
        let path = dir.url("a.lock")
        let lock = try FileLock(file: path)
        lock.release()
        lock.release()
        let again = try FileLock(file: path)
        withExtendedLifetime(again) {}
    }

    @Test func aWaitThatRunsOutStillReportsTheLockHeld() throws {
        let dir = TempDirectory("lock")
        let path = dir.url("a.lock")
        let lock = try FileLock(file: path)
        #expect(throws: FileLockError.held(path: path)) { try FileLock(file: path, wait: .upTo(seconds: 0.2)) }
        withExtendedLifetime(lock) {}
    }

    @Test func aFolderIsLockedWithoutChangingAnythingInIt() throws {
        let dir = TempDirectory("lock")
        try dir.write("tree/catalog.json", "{}")
        let tree = dir.url("tree")
        let before = DirectorySnapshot(dir.path)
        let lock = try FileLock(directory: tree)
        #expect(throws: FileLockError.held(path: tree)) { try FileLock(directory: tree) }
        #expect(DirectorySnapshot(dir.path) == before)
        lock.release()
        _ = try FileLock(directory: tree, mode: .shared)
        #expect(DirectorySnapshot(dir.path) == before)
    }

    @Test func openFailuresNameTheCallAndErrno() throws {
        let dir = TempDirectory("lock")
        let file = try dir.write("plain", "x")
        #expect(throws: FileLockError.io(call: "open", path: dir.url("missing"), errno: ENOENT)) { try FileLock(directory: dir.url("missing")) }
        #expect(throws: FileLockError.io(call: "open", path: file, errno: ENOTDIR)) { try FileLock(directory: file) }
        #expect(throws: FileLockError.io(call: "open", path: dir.path, errno: EISDIR)) { try FileLock(file: dir.path) }
        #expect(FileLockError.io(call: "open", path: file, errno: ENOTDIR).description == "open \(file): \(String(cString: strerror(ENOTDIR)))")
    }
}
