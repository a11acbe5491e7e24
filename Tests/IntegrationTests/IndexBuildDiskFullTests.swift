import Testing
import Foundation
import CorpusFormat
import CorpusTestSupport

/// security-cases.md "disk full while the index is built at install → exit 7 with the space
/// needed; previous version intact", on a real small volume: the home is a tmpfs, one corpus is
/// installed on it, then the volume is shrunk (`remount,size=`) to leave room for the next
/// corpus's download and unpacked files but not for its full-text index, which the client builds
/// at install (format 2, the default). Served by `corpusd serve` on loopback, installed by the
/// real `corpus`.
@Suite struct IndexBuildDiskFullTests {
    /// A home on a tmpfs of its own with `base` installed from `tree`.
    struct SmallVolume {
        let tree: PublishedCorpusTree
        let server: ServerProcess
        let client: PublishedTreeClient
        let volume: ScratchMount

        init(_ next: PublishedCorpusTree.Corpus) throws {
            tree = try PublishedCorpusTree(corpora: [
                .init(id: "base", documents: PublishedCorpusTree.documents("harbour pilot", count: 2)), next,
            ])
            server = try tree.serve()
            client = PublishedTreeClient()
            try FileManager.default.createDirectory(atPath: client.home, withIntermediateDirectories: true)
            volume = try ScratchMount.tmpfs(at: client.home, bytes: 64 << 20)
            try client.addRemote(server.url, trust: tree.rootPub)
            let r = try client.run(["install", "base"])
            guard r.status == 0 else { throw PublishedCorpusTree.FixtureError(description: "install base: \(r.stderr)") }
        }

        /// Shrinks the volume to what it holds now plus `room` bytes.
        func leave(_ room: Int64) throws {
            try volume.resize(bytes: (volume.used + room + 4095) / 4096 * 4096)
        }

        func stop() {
            _ = server.stop()
            volume.unmount()
        }

        /// `install ID` fails with exit 7, `disk-full`, and leaves the home as it was and `base` whole.
        func expectDiskFull(_ id: String, _ message: (String) -> Bool) throws {
            let before = client.snapshot
            let (r, object) = try client.json(["install", id])
            #expect(r.status == 7, "\(r.stdout) \(r.stderr)")
            let result = (object?["results"] as? [[String: Any]])?.first
            #expect(result?["status"] as? String == "failed")
            let error = result?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "disk-full", "\(String(describing: error))")
            let text = error?["message"] as? String ?? ""
            #expect(message(text), "\(text)")
            #expect(client.snapshot == before, "home changed:\n\(before)\n---\n\(client.snapshot)")
            #expect(client.entries("staging").isEmpty && client.entries("downloads").isEmpty)
            #expect(try client.installed() == ["base@1"])
            #expect(try client.run(["verify"]).status == 0)
            #expect(try client.search("harbour pilot")?.isEmpty == false)
        }
    }

    /// The bytes the client counts for installing a corpus of these sizes: every member unpacked,
    /// and 1.25 times the shipped pack for its index (docs/client.md "Free space").
    static func counted(_ sizes: (bundle: Int64, members: [String: Int64])) throws -> Int64 {
        let pack = try #require(sizes.members[BundleLayout.pack])
        return sizes.members.values.reduce(0, +) + pack + pack / 4
    }

    @Test(.enabled(if: ScratchMount.isPossible, "needs root and mount(8)"))
    func aVolumeWithoutRoomForTheIndexIsRefusedAsDiskFullBeforeUnpacking() throws {
        let f = try SmallVolume(.init(id: "big", documents: PublishedCorpusTree.documents("tidewater estuary", count: 100, paragraphs: 20, seed: 3)))
        defer { f.stop() }
        let sizes = try f.tree.sizes(of: "big")
        let unpacked = sizes.members.values.reduce(0, +)
        // The download and the unpacked files fit, with 128 KiB to spare: the index does not.
        try #require(unpacked > 1 << 20, "the download check (bundle + 1 MiB) must pass")
        try f.leave(sizes.bundle + unpacked + (128 << 10))
        let needed = try Self.counted(sizes)
        try f.expectDiskFull("big") { $0.contains("not enough free space in \(f.client.home)/staging: needs \(needed) bytes") }
    }

    @Test(.enabled(if: ScratchMount.isPossible, "needs root and mount(8)"))
    func anIndexLargerThanCountedStillEndsAsDiskFull() throws {
        // Every word a new random token: its index outgrows the 1.25 times the shipped pack the
        // client counts (measured 2.39 times), so the preflight passes and the build fills the volume.
        var random = SplitMix64(seed: 27)
        var documents: [String: String] = [:]
        for d in 0..<150 {
            documents["log-\(d).md"] = "# Log \(d)\n\n" + (0..<20).map { _ in
                (0..<60).map { _ in String(UInt32(truncatingIfNeeded: random.next()), radix: 16) }.joined(separator: " ")
            }.joined(separator: "\n\n") + "\n"
        }
        let f = try SmallVolume(.init(id: "hexlog", documents: documents))
        defer { f.stop() }
        let sizes = try f.tree.sizes(of: "hexlog")
        let needed = try Self.counted(sizes)
        try f.leave(sizes.bundle + needed + (1 << 20) + (64 << 10))
        // The preflight passed; the build filled the volume. The refusal names the room the largest
        // index measured would need: 2.5 times the shipped pack.
        let pack = try #require(sizes.members[BundleLayout.pack])
        let largest = sizes.members.values.reduce(0, +) + pack * 2 + pack / 2
        try f.expectDiskFull("hexlog") { $0.contains("not enough free space in \(f.client.home)/staging: needs \(largest) bytes") }
    }
}
