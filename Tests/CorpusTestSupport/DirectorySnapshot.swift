import Foundation
import CorpusFormat

/// Every file, folder and symlink under a root with its content hash, for asserting that a
/// refusal left a folder byte-identical ("nothing on disk changed").
public struct DirectorySnapshot: Equatable, Sendable, CustomStringConvertible {
    public let entries: [String: String]

    /// - Parameter ignoring: path components to skip (lock files are allowed to come and go).
    public init(_ root: String, ignoring: (String) -> Bool = { _ in false }) {
        var entries: [String: String] = [:]
        let fm = FileManager.default
        if let e = fm.enumerator(atPath: root) {
            while let rel = e.nextObject() as? String {
                if ignoring(rel) { continue }
                let full = "\(root)/\(rel)"
                var st = stat()
                guard lstat(full, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: entries[rel] = "dir"
                case S_IFLNK: entries[rel] = "link:" + ((try? fm.destinationOfSymbolicLink(atPath: full)) ?? "?")
                default:
                    let hash = (try? SHA256.hash(fileAt: full)).map { Hex.encode($0.digest) } ?? "unreadable"
                    entries[rel] = "file:\(hash)"
                }
            }
        }
        self.entries = entries
    }

    /// Runs `body` and reports what it threw (nil when it returned) and whether `root` was left
    /// byte-identical: the two things every refusal test asserts.
    public static func attempt(leaving root: String, _ body: () throws -> Void) -> (error: Error?, unchanged: Bool) {
        let before = DirectorySnapshot(root)
        do {
            try body()
            return (nil, DirectorySnapshot(root) == before)
        } catch {
            return (error, DirectorySnapshot(root) == before)
        }
    }

    /// The files (and symlinks) added, changed or removed since `before`; folders are left out,
    /// their files say what changed.
    public func changedFiles(since before: DirectorySnapshot) -> Set<String> {
        Set(entries.keys).union(before.entries.keys).filter { path in
            entries[path] != "dir" && before.entries[path] != "dir" && entries[path] != before.entries[path]
        }
    }

    public var description: String {
        entries.keys.sorted().map { "\($0) \(entries[$0]!)" }.joined(separator: "\n")
    }
}
