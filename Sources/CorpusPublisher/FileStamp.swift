import Foundation
import CorpusFormat

/// What a file looked like when its SHA-256 was taken: device, inode, size, and its modification
/// and change times to the nanosecond. A publish that finds all of it the same takes the file to
/// hold the same bytes and does not read it again (as git's index, make and rsync do): hashing
/// every source file and every bundle on each republish read the whole catalog's bytes, 100 GB
/// for 100,000 one-megabyte books.
///
/// A write changes the change time (no one can set it back), so a stamp goes stale on any write,
/// with one exception git calls "racily clean": two writes within one tick of the kernel's
/// coarse clock, the second after the hash was taken, leave both times equal. A stamp is therefore
/// kept only when both times are at least `settle` before the moment the file was stamped; a file
/// written more recently is hashed again by the next publish.
struct FileStamp: Codable, Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    /// How old both times must be for a stamp to be kept (the coarse clock ticks every few ms;
    /// a wide margin also covers a file system that stores seconds).
    static let settle: Int64 = 2_000_000_000

    /// The stamp of an open file.
    static func of(descriptor fd: Int32) -> FileStamp? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return FileStamp(st)
    }

    /// The stamp of the file at `path` (its own, not a link's target's).
    static func of(path: String) -> FileStamp? {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(st)
    }

    /// The current time on the clock file times come from, in nanoseconds.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Whether this stamp, taken at `takenAt` (`now()`), may stand for the bytes read after it.
    func settled(takenAt: Int64) -> Bool {
        modified <= takenAt - Self.settle && changed <= takenAt - Self.settle
    }
}

extension FileStamp {
    init(_ st: stat) {
        self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                  modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  changed: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }
}

/// A file's SHA-256 with the stamp it had when it was read.
struct StampedDigest: Codable, Equatable, Sendable {
    var stamp: FileStamp
    var sha256: SHA256Digest
}

/// Takes the SHA-256s of a corpus's files, reusing the last publish's digest of a file whose
/// stamp is unchanged (`known`, by the file's path in its source), and keeps the settled stamps
/// for the next publish.
struct StampedHasher {
    let known: [String: StampedDigest]
    private(set) var kept: [String: StampedDigest] = [:]
    /// Files read to be hashed, for the publish's summary.
    private(set) var hashed = 0

    init(known: [String: StampedDigest]) { self.known = known }

    mutating func digest(of reader: FileHandleReader, key: String) throws -> SHA256Digest {
        let takenAt = FileStamp.now()
        let stamp = FileStamp.of(descriptor: reader.descriptor)
        let sha: SHA256Digest
        if let stamp, let known = known[key], known.stamp == stamp {
            sha = known.sha256
        } else {
            sha = SHA256Digest(bytes: try SHA256.hash(reader).digest)
            hashed += 1
        }
        if let stamp, stamp.settled(takenAt: takenAt) { kept[key] = StampedDigest(stamp: stamp, sha256: sha) }
        return sha
    }
}
