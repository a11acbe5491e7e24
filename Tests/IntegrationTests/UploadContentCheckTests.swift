import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpusd upload` checks each content-addressed file against the SHA-256 its name gives while it
/// sends it, and a file whose bytes changed after publishing (same size) never reaches the
/// bucket: the PUT is cut before its last byte, nothing after it is written, the pointer stays
/// where it was, and the command says which file and what to do.
@Suite(.serialized) struct UploadContentCheckTests {
    @Test func aBundleWhoseBytesNoLongerMatchItsNameIsNotUploaded() throws {
        let f = try ObjectStoreFixture()
        try f.work.write("catalog/tides/a.md", "# Tides\n\nSpring tides follow the full moon.\n")
        try f.writeCatalog([["id": "tides", "version": "1", "source": "tides", "access": "free"]])
        let published = try f.publish()
        #expect(published.status == 0, "\(published.stderr)")
        let bundle = try f.bundlePath("tides")

        // One byte in the middle of the bundle flipped, the size unchanged (a disk or copy fault).
        let local = "\(f.tree)/\(bundle)"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: local))
        bytes[bytes.count / 2] ^= 0x5a
        try bytes.write(to: URL(fileURLWithPath: local))

        let r = try f.corpusd(["upload", f.tree, "--to", "s3://\(ObjectStoreFixture.bucket)/tree", "--endpoint", f.store.endpoint])
        #expect(r.status == 7, "exit \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("\(bundle) does not hold the bytes its name promises"), "\(r.stderr)")
        #expect(!r.stderr.contains(f.store.secretKey))
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.publicURL)/\(bundle)"], signed: true).stdout == "404")
        #expect(try f.store.curl(["-o", "/dev/null", "\(f.publicURL)/catalog.json"], signed: true).stdout == "404")
    }
}
