import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// A republish does not read a source file or a bundle whose stamp (device, inode, size,
/// modification and change times) is the one recorded when it was last hashed, and records a
/// stamp only once the file has been left alone for `FileStamp.settle`.
@Suite(.serialized) struct FileStampReuseTests {
    final class Fixture: PublishFolder {
        init() throws {
            try super.init("stamps")
            try dir.write("catalog/catalog.json", """
            {"id": "c", "title": "C", "corpora": [
              {"id": "tides", "version": "1", "title": "Tides", "source": "tides", "access": "free"},
              {"id": "orbits", "version": "1", "title": "Orbits", "source": "orbits", "access": "free"}]}
            """)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
            try dir.write("catalog/tides/neaps.txt", "Neaps\n\nNeap tides follow the quarter moons.")
            try dir.write("catalog/orbits/kepler.md", "# Kepler\n\nPlanets sweep equal areas in equal times.")
        }

        @discardableResult
        func publish() throws -> PublishSummary { try TreePublisher.publish(catalogDirectory: catalog, output: tree, key: key) }

        /// Past the settling time of everything written so far.
        func settle() { usleep(useconds_t(FileStamp.settle / 1000 + 200_000)) }

        func snapshot() -> DirectorySnapshot { DirectorySnapshot(tree, ignoring: { $0 == ".publish.lock" }) }
    }

    /// Three source files and two bundles: all read while they are fresh, none once settled.
    @Test func filesAreReadUntilTheirStampsSettleAndNotAfter() throws {
        let f = try Fixture()
        #expect(try f.publish().hashed == 3)
        // Written moments ago: no stamp is kept, so the next publish reads them all again.
        #expect(try f.publish().hashed == 5)
        f.settle()
        #expect(try f.publish().hashed == 5)
        let unchanged = try f.publish()
        #expect(unchanged.hashed == 0 && unchanged.reused == ["tides", "orbits"])
        let cache = BuildCache.load(tree: f.tree)
        #expect(cache.corpora["tides"]?.sources?.keys.sorted() == ["neaps.txt", "springs.md"])
        #expect(cache.corpora["tides"]?.bundleStamp != nil)
    }

    /// Content rewritten at the same size with the old modification time put back still has a
    /// new change time: the file is read, its new content found, and the version rule refuses it.
    @Test func aFileRewrittenWithItsOldSizeAndModificationTimeIsStillRead() throws {
        let f = try Fixture()
        try f.publish()
        f.settle()
        try f.publish()
        let path = f.dir.url("catalog/tides/neaps.txt")
        var st = stat()
        #expect(lstat(path, &st) == 0)
        try f.dir.write("catalog/tides/neaps.txt", "Neaps\n\nNeap tides follow the quarter noons.")
        var times = [st.st_atim, st.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let before = f.snapshot()
        #expect(throws: PublisherError.versionReused(corpus: "tides", version: "1", catalogVersion: 2)) { try f.publish() }
        #expect(f.snapshot() == before)
    }

    /// A bundle changed in the tree since it was stamped is hashed again, found wrong, and built again.
    @Test func aBundleChangedInTheTreeIsHashedAndBuiltAgain() throws {
        let f = try Fixture()
        let first = try f.publish()
        f.settle()
        try f.publish()
        let tides = try #require(first.catalog.corpora.first { $0.id == "tides" }?.bundle)
        let fd = open("\(f.tree)/\(tides.path)", O_WRONLY)
        #expect(fd >= 0)
        #expect(pwrite(fd, [UInt8(0x58)], 1, 40) == 1)
        close(fd)
        let again = try f.publish()
        #expect(again.built == ["tides"] && again.reused == ["orbits"])
        #expect(again.hashed == 1)
        #expect(tides.matches(fileAt: "\(f.tree)/\(tides.path)"))
    }
}
