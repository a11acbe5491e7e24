import Foundation
import Testing
@testable import CorpusFormat
import CorpusTestSupport

/// The pieces `ParallelDeflate` lays end to end must be one deflate stream that other tools
/// read back byte for byte: each case wraps the stream in a zip member and has the system
/// `unzip` test its CRC and extract it.
@Suite struct ParallelDeflateTests {
    static let chunk = ParallelDeflate.chunkSize

    /// Sizes around the edges: nothing, less than the 32 KiB window, exactly one chunk, one byte
    /// over, and more than one group of chunks (a group is 4 chunks per core) ending mid-chunk.
    static let sizes = [0, 1, 20_000, chunk, chunk + 1, 3 * chunk - 7,
                        4 * ProcessInfo.processInfo.activeProcessorCount * chunk + chunk / 2 + 3]

    /// zlib at the level of earlier builds, and ISA-L, which compresses the indexed pack on Linux.
    static let engines: [ParallelDeflate.Engine] = [.zlib(level: 2), .isal]

    @Test(arguments: sizes, engines)
    func theStreamUnzipsToTheSameBytes(size: Int, engine: ParallelDeflate.Engine) throws {
        let dir = TempDirectory("deflate")
        let input = dir.url("input.bin")
        let bytes = Self.sample(size: size)
        try bytes.write(to: URL(fileURLWithPath: input))

        let deflated = try ParallelDeflate.compress(fileAt: input, engine: engine, to: dir.url("input.deflate"))
        #expect(deflated.size == Int64(size))
        #expect(deflated.sha256 == SHA256.hash(bytes))
        #expect(deflated.compressedSize == FileIO.fileSize(deflated.path))
        if size > 100_000 {
            // The text half compresses; a stream of stored blocks would be larger than the input.
            #expect(deflated.compressedSize < Int64(size) * 7 / 10)
        }

        let zipPath = dir.url("out.zip")
        let zip = try ZipArchive(path: zipPath, flags: 1 /* ZIP_CREATE */)
        try zip.add(name: "input.bin", deflated: deflated, level: engine.zipLevel)
        try zip.close()
        #expect(try ProcessRunner.run("unzip", ["-tq", zipPath]).status == 0)
        let out = try ProcessRunner.run("unzip", ["-p", zipPath, "input.bin"])
        #expect(out.status == 0)
        #expect(out.stdoutData == bytes)
        // Python's zipfile (zlib underneath) reads it too, CRC checked.
        let py = try ProcessRunner.run("/usr/bin/python3", ["-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read('input.bin'))", zipPath])
        #expect(py.status == 0)
        #expect(py.stdoutData == bytes)
    }

    @Test(arguments: engines)
    func theBytesDependOnlyOnTheInput(engine: ParallelDeflate.Engine) throws {
        let dir = TempDirectory("deflate-again")
        let input = dir.url("input.bin")
        try Self.sample(size: 5 * Self.chunk + 123).write(to: URL(fileURLWithPath: input))
        let a = try ParallelDeflate.compress(fileAt: input, engine: engine, to: dir.url("a"))
        let b = try ParallelDeflate.compress(fileAt: input, engine: engine, to: dir.url("b"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: a.path)) == Data(contentsOf: URL(fileURLWithPath: b.path)))
        #expect(a.crc32 == b.crc32)
    }

    @Test func anExistingOutputIsNotOverwritten() throws {
        let dir = TempDirectory("deflate-exists")
        let input = dir.url("input.bin")
        try Self.sample(size: 1000).write(to: URL(fileURLWithPath: input))
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir.url("out")))
        #expect(throws: FormatError.io(operation: "create", path: dir.url("out"), errno: EEXIST)) {
            try ParallelDeflate.compress(fileAt: input, level: 2, to: dir.url("out"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.url("out"))) == Data("keep".utf8))
    }

    /// Repetitive text with stretches of noise, so matches reach across chunk cuts and some
    /// blocks do not compress at all.
    static func sample(size: Int) -> Data {
        var out = Data(capacity: size)
        var rng = SplitMix64(seed: 1)
        let words = ["tide ", "harbour ", "lighthouse ", "spring ", "neap ", "chart ", "buoy "]
        while out.count < size {
            let draw = rng.next()
            if draw >> 54 == 0 {
                for _ in 0..<min(512, size - out.count) {
                    out.append(UInt8(truncatingIfNeeded: rng.next()))
                }
            } else {
                out.append(contentsOf: words[Int(draw >> 61) % words.count].utf8.prefix(size - out.count))
            }
        }
        return out
    }
}
