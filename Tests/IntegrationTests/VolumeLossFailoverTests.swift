import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// A SeaweedFS of separate processes (master, two volume servers, filer with the S3 gateway);
/// the volume server holding the middle of a bundle is killed while `corpus` is downloading it
/// from the bucket. The download goes on from the mirror, resumed, and the install verifies.
@Suite(.serialized) struct VolumeLossFailoverTests {
    @Test func aVolumeServerKilledMidDownloadEndsInAVerifiedInstallFromTheMirror() throws {
        let f = try ObjectStoreFixture(.cluster)
        let reef = try f.noiseBundle(id: "reef-noise", mebibytes: 64, word: "lagoon")
        try f.writeCatalog([["id": "reef-noise", "version": "1", "bundle": reef, "access": "free"]])
        let published = try f.publish(f.uploadOptions())
        #expect(published.status == 0, "\(published.stderr)")
        let bundle = try f.bundlePath("reef-noise")

        let mirror = try ServerProcess(BuiltProducts.corpusd, ["serve", f.tree, "--listen", "127.0.0.1:{PORT}"])
        defer { mirror.stop() }
        // The relay stops passing bytes 2 MiB into the download; the server of the chunk at 63 MiB (of
        // about 64) is the victim, far past what the gateway may have read ahead.
        let relay = try RelayProxy(upstreamPort: f.store.s3Port, holdAfterResponseBytes: 2 << 20)
        defer { relay.stop() }
        let victim = try #require(try f.store.volumeServer(holding: ObjectStoreFixture.bucket, "tree/\(bundle)", offset: 63 << 20),
                                  "no volume server found for the bundle's chunk")

        let client = IntegrationClient("volume-loss")
        try client.must(["remote", "add", "hosted", "\(relay.url)/\(ObjectStoreFixture.bucket)/tree", "--mirror", mirror.url, "--trust", f.rootPub])
        nonisolated(unsafe) var install: ProcessResult?
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            install = try? client.run(["install", "reef-noise"], timeout: 240)
            done.signal()
        }
        #expect(relay.waitUntilHeld(timeout: 120), "the download never reached 2 MiB")
        f.store.kill(victim)
        relay.release()
        #expect(done.wait(timeout: .now() + 240) == .success)
        let r = try #require(install)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try client.run(["verify"]).status == 0)
        // The mirror was asked for the rest with a range: resumed, not restarted.
        #expect(mirror.stderrEventuallyContains("\"GET /\(bundle)\" 206"), "\(mirror.stderr)")
    }
}
