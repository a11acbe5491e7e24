import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// The one read-only memory map (`MappedFile`) the vector index, the safetensors reader and the
/// builder's parallel deflate share.
@Suite struct MappedFileTests {
    @Test func mapsTheWholeFileAndKeepsItReadableAfterUnlink() throws {
        let dir = TempDirectory("map")
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = try dir.write("f.bin", Data(bytes))
        for advice in [MappedFile.Advice.normal, .willNeed] {
            let file = try MappedFile(path: path, advice: advice)
            #expect(file.size == bytes.count && file.path == path)
            #expect(Array(file.bytes) == bytes)
        }
        let file = try MappedFile(path: path)
        // The mapping, not the path, keeps the pages: an install may unlink the file meanwhile.
        #expect(unlink(path) == 0)
        #expect(Array(file.bytes) == bytes)
    }

    @Test func anEmptyFileHasNoBytesAndNoMapping() throws {
        let dir = TempDirectory("map")
        let file = try MappedFile(path: try dir.write("empty", Data()))
        #expect(file.size == 0 && file.bytes.isEmpty && file.bytes.baseAddress == nil)
    }

    @Test func aMissingFileNamesTheCallThatFailed() {
        let path = "/nonexistent/corpussync-map"
        #expect(throws: MappedFileError.io(call: "open", path: path, errno: ENOENT)) { try MappedFile(path: path) }
    }

    @Test func aFolderIsNotMapped() throws {
        let dir = TempDirectory("map")
        do {
            _ = try MappedFile(path: dir.path)
            Issue.record("a folder must not map")
        } catch {
            #expect(error == .notRegularFile(path: dir.path))
            // How each caller's domain reports it: an I/O error of "map" with EINVAL.
            #expect(error.operation == "map" && error.errno == EINVAL && error.path == dir.path)
            #expect(FormatError(error) == .io(operation: "map", path: dir.path, errno: EINVAL))
            #expect(error.description == "map \(dir.path): \(String(cString: strerror(EINVAL)))")
        }
    }
}
