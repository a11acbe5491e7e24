import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One private folder per fuzzer process for the parsers that read from a path (zip readers,
/// EPUB, importers): on /dev/shm when there is one, so "the disk" is memory; removed at exit.
enum FuzzScratch {
    static let folder: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array("\(base)/corpus-fuzz-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "cannot make a scratch folder under \(base)")
        let path = String(cString: template)
        atexit { FuzzScratch.removeAll() }
        return path
    }()

    /// Writes `bytes` to `name` in the scratch folder, replacing what was there, and returns its path.
    static func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = "\(folder)/\(name)"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// An empty folder `name` in the scratch folder (emptied when it existed).
    static func emptyFolder(_ name: String) -> String {
        let path = "\(folder)/\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func removeAll() { try? FileManager.default.removeItem(atPath: folder) }
}
