import CorpusFormat
import Foundation

/// Streams a bundle with a 1 GiB stored vectors.bin through `BundleReader.verifyAll` and `extract`,
/// printing throughput and peak RSS as `key=value` lines for scripts/bench-bundle.sh.
///
/// Usage: `corpus-bench bundle-stream [--cache DIR] [--extract-to DIR]`
/// The bundle (and its key) is built once under the cache folder (default `.bench/bundle-stream`).
enum BundleStreamBench {
    /// f32, 256 dimensions: 1 KiB rows, 1,048,575 of them, so the file is 1 GiB minus 960 bytes.
    static let header = VectorFileHeader(encoding: .f32, dimension: 256, rows: (1 << 20) - 1)

    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let cache = options.value("--cache") ?? ".bench/bundle-stream"
        let extractTo = options.value("--extract-to")
        try options.refuseUnread()
        let bundle = "\(cache)/big.corpus.zip"
        let key = try prepare(cache: cache, bundle: bundle)
        let size = Double(header.fileSize)

        var start = Date()
        let manifest = try BundleReader(path: bundle).verifyAll(trustedKeys: [key.publicKey])
        let verifySeconds = Date().timeIntervalSince(start)
        print("vectors_bytes=\(manifest.members[BundleLayout.vectors]!.size)")
        print(String(format: "verify_seconds=%.3f", verifySeconds))
        print(String(format: "verify_mb_s=%.1f", size / verifySeconds / 1e6))

        if let target = extractTo {
            FileIO.remove(target)
            start = Date()
            try BundleReader(path: bundle).extract(to: target, trustedKeys: [key.publicKey])
            let extractSeconds = Date().timeIntervalSince(start)
            print(String(format: "extract_seconds=%.3f", extractSeconds))
            print(String(format: "extract_mb_s=%.1f", size / extractSeconds / 1e6))
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        // Linux reports ru_maxrss in KiB.
        print(String(format: "peak_rss_mib=%.1f", Double(usage.ru_maxrss) / 1024))
    }

    /// Builds the bundle and key once; later runs reuse them.
    static func prepare(cache: String, bundle: String) throws -> SecretKey {
        let keyPath = "\(cache)/bench.key"
        if FileIO.exists(bundle), FileIO.exists(keyPath) { return try SecretKey(contentsOf: keyPath) }
        try FileIO.createDirectory(cache)
        let key = try SecretKey.generate()
        let vectors = "\(cache)/vectors.bin", pack = "\(cache)/pack.sqlite"
        try writeVectors(vectors)
        // The pack's content is opaque to bundle streaming; a small stand-in keeps the focus on vectors.bin.
        try FileIO.writeAtomically(Data(repeating: 0x5A, count: 1 << 16), to: pack)
        let manifest = Manifest(id: "bench", version: CorpusVersion("1")!, title: "Bundle streaming benchmark",
                                embedder: EmbedderInfo(id: "random-256", dimension: 256, encoding: "f32"),
                                documents: 1, passages: header.rows,
                                content: ContentDigest.make(passageIDs: [String](), embedderID: "random-256"))
        try BundleWriter.write(manifest: manifest, packPath: pack, vectorsPath: vectors, key: key, to: bundle)
        FileIO.remove(vectors)
        FileIO.remove(pack)
        try FileIO.writeAtomically(Data(key.fileText.utf8), to: keyPath, mode: 0o600)
        return key
    }

    /// A valid vector file of pseudo-random f32 values in [-1, 1), written in 1 MiB blocks.
    static func writeVectors(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: path, errno: errno) }
        defer { close(fd) }
        try header.encoded().withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var block = [Float](repeating: 0, count: 1 << 18)
        var remaining = header.fileSize - VectorFileHeader.size
        while remaining > 0 {
            for j in block.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                block[j] = Float(Int32(truncatingIfNeeded: state)) / 2_147_483_648
            }
            let n = min(remaining, block.count * 4)
            try block.withUnsafeBytes { try FileIO.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n]), path: path) }
            remaining -= n
        }
    }
}
