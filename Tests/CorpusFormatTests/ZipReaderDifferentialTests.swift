import Foundation
import Testing
@testable import CorpusFormat
import CorpusTestSupport

// Two readers to compare only where libzip is built (not on Apple platforms).
#if !canImport(Darwin)
/// The zlib reader against libzip: thousands of archives made from real bundles the publisher
/// writes and small hand-made zips (stored, deflated, Zip64-form, empty), then mutated (bytes
/// flipped, cut short, header fields set to neighbouring or extreme values, bytes inserted or
/// appended, members duplicated or renamed). Both readers must accept the same archives and
/// extract byte-identical members. Seeded, so a failure names a case that replays.
@Suite struct ZipReaderDifferentialTests {
    /// What reading every member of an archive gave.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted([[UInt8]])
        case refused(String)

        var description: String {
            switch self {
            case .accepted(let members): return "accepted \(members.map(\.count)) bytes"
            case .refused(let why): return "refused: \(why)"
            }
        }
    }

    /// Opens `path` as the readers' callers do (the pre-check, then the implementation) and reads
    /// every member to its end, each capped at 4 MiB.
    static func outcome(_ path: String, limits: ZipCentralDirectory.Limits, implementation: ZipImplementation) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .refused("open failed") }
        let directory: ZipCentralDirectory
        do {
            directory = try ZipCentralDirectory.read(fd: fd, path: path, limits: limits)
        } catch {
            close(fd)
            return .refused("\(error)")
        }
        do {
            let reader = try ZipReader(adopting: fd, path: path, directory: directory, implementation: implementation)
            return .accepted(try directory.entries.indices.map { [UInt8](try reader.readSmall(at: $0, name: "member \($0)", limit: 4 << 20)) })
        } catch {
            return .refused("\(error)")
        }
    }

    /// Replaces the file's contents in place. Never truncated to zero: ext4 flushes a file
    /// rewritten after a truncation to zero when it is closed (auto_da_alloc), milliseconds a case.
    static func overwrite(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FormatError.io(operation: "create", path: path, errno: errno) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
        guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw FormatError.io(operation: "truncate", path: path, errno: errno) }
    }

    /// The unmutated archives the cases start from.
    static func seeds(_ dir: TempDirectory) throws -> [(name: String, bytes: [UInt8])] {
        let f = try BundleFixture()
        let (bundle, _) = try f.writeBundle()
        var seeds = [("bundle", [UInt8](try Data(contentsOf: URL(fileURLWithPath: bundle))))]
        let text = Array(String(repeating: "tides and harbours, knots and charts. ", count: 40).utf8)
        let deflated = try ZipCrafting.deflate(text, scratch: dir.path)
        var deflatedEntry = CraftedZipEntry(name: "chart.txt", stored: deflated)
        deflatedEntry.method = 8
        deflatedEntry.crc = ZipCrafting.crc32(text)
        deflatedEntry.uncompressedSize = UInt32(text.count)
        var zip64Entry = CraftedZipEntry(name: "big.bin", stored: Array(text.prefix(300)))
        zip64Entry.zip64 = true
        var zip64Deflated = deflatedEntry
        zip64Deflated.zip64 = true
        seeds.append(("stored", ZipCrafting.build([CraftedZipEntry(name: "a.md", stored: Array("# A\nalpha".utf8)),
                                                   CraftedZipEntry(name: "empty", stored: []),
                                                   CraftedZipEntry(name: "b/c.md", stored: Array(text.prefix(200)))])))
        seeds.append(("deflated", ZipCrafting.build([CraftedZipEntry(name: "mimetype", stored: Array("application/epub+zip".utf8)), deflatedEntry])))
        seeds.append(("zip64", ZipCrafting.build([zip64Entry, zip64Deflated])))
        seeds.append(("empty", ZipCrafting.build([])))
        return seeds
    }

    /// Where local headers (signature PK\3\4) and central entries (PK\1\2) start in `bytes`.
    static func headers(in bytes: [UInt8]) -> (local: [Int], central: [Int]) {
        var local: [Int] = [], central: [Int] = []
        for i in 0..<max(0, bytes.count - 3) where bytes[i] == 0x50 && bytes[i + 1] == 0x4b {
            if bytes[i + 2] == 3 && bytes[i + 3] == 4 { local.append(i) }
            if bytes[i + 2] == 1 && bytes[i + 3] == 2 { central.append(i) }
        }
        return (local, central)
    }

    /// One mutation of `seed`, chosen by `rng`.
    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        let (local, central) = headers(in: seed)
        switch rng.next() % 8 {
        case 6, 7:  // change a stored member's content and give it the matching CRC: a readable archive
            return rewriteStoredMember(seed, local: local, central: central, &rng) ?? bytes
        case 0:  // flip a few bytes anywhere
            for _ in 0...(rng.next() % 3) where !bytes.isEmpty {
                bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
        case 1:  // cut short
            bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count + 1))))
        case 2, 3:  // set one header field: flags, method, time, CRC, sizes, name/extra length, offset
            let fields: [(at: Int, width: Int)]
            let base: Int
            if rng.next() % 2 == 0, !local.isEmpty {
                base = local[Int(rng.next() % UInt64(local.count))]
                fields = [(4, 2), (6, 2), (8, 2), (10, 4), (14, 4), (18, 4), (22, 4), (26, 2), (28, 2)]
            } else if !central.isEmpty {
                base = central[Int(rng.next() % UInt64(central.count))]
                fields = [(6, 2), (8, 2), (10, 2), (12, 4), (16, 4), (20, 4), (24, 4), (28, 2), (30, 2), (34, 2), (42, 4)]
            } else {
                return Array(bytes.dropLast())
            }
            let field = fields[Int(rng.next() % UInt64(fields.count))]
            guard base + field.at + field.width <= bytes.count else { return bytes }
            var value: UInt64 = 0
            for k in 0..<field.width { value |= UInt64(bytes[base + field.at + k]) << (8 * k) }
            let max: UInt64 = field.width == 2 ? 0xFFFF : 0xFFFF_FFFF
            let choices: [UInt64] = [value &+ 1, value &- 1, 0, max, rng.next(), 8, 12, value ^ 8]
            value = choices[Int(rng.next() % UInt64(choices.count))] & max
            for k in 0..<field.width { bytes[base + field.at + k] = UInt8(truncatingIfNeeded: value >> (8 * k)) }
        case 4:  // insert or remove a few bytes
            let at = Int(rng.next() % UInt64(bytes.count + 1))
            if rng.next() % 2 == 0 {
                bytes.insert(contentsOf: (0..<(1 + rng.next() % 4)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: at)
            } else {
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 4)))
            }
        default:  // bytes after the end, or a copy of the first member's local header and data
            if rng.next() % 2 == 0 || local.count < 1 || central.isEmpty {
                bytes += (0..<(1 + rng.next() % 8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                let end = local.count > 1 ? local[1] : central[0]
                bytes.insert(contentsOf: seed[local[0]..<end], at: end)
            }
        }
        return bytes
    }

    /// `seed` with one byte of a stored member's data changed and that member's CRC in both headers
    /// recomputed, so that both readers accept it and the bytes they extract can be compared.
    static func rewriteStoredMember(_ seed: [UInt8], local: [Int], central: [Int], _ rng: inout SplitMix64) -> [UInt8]? {
        func u16(_ at: Int) -> Int { Int(seed[at]) | Int(seed[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        let stored = local.filter { $0 + 30 <= seed.count && u16($0 + 8) == 0 && u32($0 + 18) > 0 && u32($0 + 18) != UInt32.max }
        guard !stored.isEmpty else { return nil }
        let header = stored[Int(rng.next() % UInt64(stored.count))]
        let start = header + 30 + u16(header + 26) + u16(header + 28), size = Int(u32(header + 18))
        guard start + size <= seed.count, let entry = central.first(where: { $0 + 46 <= seed.count && u32($0 + 42) == UInt32(header) }) else { return nil }
        var bytes = seed
        bytes[start + Int(rng.next() % UInt64(size))] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
        let crc = ZipCrafting.crc32(Array(bytes[start..<(start + size)]))
        for at in [header + 14, entry + 16] {
            for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
        }
        return bytes
    }

    /// Members duplicated, renamed or reordered at the level of the entries, for the hand-made seeds.
    static func structural() -> [[UInt8]] {
        let a = CraftedZipEntry(name: "a.md", stored: Array("alpha".utf8))
        let b = CraftedZipEntry(name: "b.md", stored: Array("beta".utf8))
        var renamed = b
        renamed.localName = Array("a.md".utf8)
        var nul = a
        nul.name = Array("a".utf8) + [0] + Array(".md".utf8)
        var lyingSize = b
        lyingSize.uncompressedSize = 3
        return [ZipCrafting.build([a, a]), ZipCrafting.build([a, b, a]), ZipCrafting.build([a, renamed]), ZipCrafting.build([nul, b]),
                ZipCrafting.build([b, a]), ZipCrafting.build([a, lyingSize]), ZipCrafting.build([a], trailing: [0])]
    }

    @Test func bothReadersAcceptTheSameArchivesAndExtractTheSameBytes() throws {
        let dir = TempDirectory("zip-differential")
        let seeds = try Self.seeds(dir)
        let path = dir.url("case.zip")
        var rng = SplitMix64(seed: 0x5EED_21F0)
        var cases: [(label: String, bytes: [UInt8])] = seeds.map { ("seed \($0.name)", $0.bytes) }
        cases += Self.structural().enumerated().map { ("structural \($0.offset)", $0.element) }
        for n in 0..<3000 {
            let seed = seeds[n % seeds.count]
            var bytes = Self.mutate(seed.bytes, &rng)
            if rng.next() % 4 == 0 { bytes = Self.mutate(bytes, &rng) }
            cases.append(("case \(n) from \(seed.name)", bytes))
        }
        var accepted = 0, disagreements: [String] = []
        for (index, c) in cases.enumerated() {
            try Self.overwrite(path, c.bytes)
            let limits: ZipCentralDirectory.Limits = index % 2 == 0 ? .bundle : .export
            let zlib = Self.outcome(path, limits: limits, implementation: .zlib)
            let libzip = Self.outcome(path, limits: limits, implementation: .libzip)
            if case .accepted = zlib { accepted += 1 }
            switch (zlib, libzip) {
            case (.refused, .refused): break
            case (.accepted(let a), .accepted(let b)) where a == b: break
            default:
                disagreements.append("\(c.label) (\(limits.strictLayout ? "bundle" : "export") limits): zlib \(zlib), libzip \(libzip); bytes \(Data(c.bytes).base64EncodedString())")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements; first: \(disagreements.prefix(3).joined(separator: "\n"))")
        // The mutations must leave enough archives readable for the comparison of bytes to mean something.
        #expect(accepted > 500, "only \(accepted) of \(cases.count) archives were accepted")
        for seed in seeds {
            try Self.overwrite(path, seed.bytes)
            guard case .accepted = Self.outcome(path, limits: .bundle, implementation: .zlib) else {
                Issue.record("seed \(seed.name) is refused")
                continue
            }
        }
    }
}
#endif
