import Foundation
import CorpusFormat
import CorpusTestSupport

/// The two shapes of a zip target's input. The first byte's low bit picks: raw bytes of a zip
/// file (the framing itself is fuzzed: end record, central directory, local headers), or a
/// `FileSet` of members written into a well-formed stored zip by `ZipCrafting` (the members'
/// contents are fuzzed behind a framing that opens).
enum ZipInput {
    static func archive(_ input: inout FuzzInput, mode: UInt8) -> [UInt8] {
        if mode & 1 == 0 { return input.rest() }
        return ZipCrafting.build(FileSet.decode(&input, maxFiles: 64).map { CraftedZipEntry(rawName: $0.name, stored: $0.data) })
    }

    /// Both seed shapes of one archive: its raw bytes and its members as a `FileSet`.
    static func seeds(_ name: String, zip path: String, prefix: [UInt8] = [], members: [String]) throws -> [(String, [UInt8])] {
        let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let reader = try ZipReader(duplicating: fd, path: path)
        let set = FileSet.encode(try members.map { ($0, try reader.read($0, limit: 64 << 20)) })
        return [("\(name)-raw", [0] + prefix + raw), ("\(name)-members", [1] + prefix + set)]
    }
}
