import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// Root key rotation end to end (TUF root rotation): the publisher rotates from key A to key B
/// with `corpusd rotate-key`; clients that pinned A follow the chain; a catalog signed only by
/// the retired key A is then refused by every client, leaving its home byte-identical.
@Suite struct KeyRotationTests {
    static func logbook(version: String, entry: String) -> IntegrationPublisher.CorpusSpec {
        .init(id: "logbook", version: version, title: "Ship's logbook", documents: [
            "watch.md": "# Watch log\n\n## Morning\n\nThe morning watch logged \(entry) off the starboard bow.\n",
            "crew.md": "# Crew\n\nThe crew list names the bosun, the cook and the navigator.\n",
        ])
    }

    @Test func clientsPinningTheOldKeyFollowTheRotationAndRefuseTheRetiredKey() throws {
        let publisher = IntegrationPublisher(catalogID: "rotation")
        let a = try publisher.keygen("a"), b = try publisher.keygen("b")
        try publisher.writeCatalog([Self.logbook(version: "1", entry: "a pod of dolphins")])
        try publisher.mustPublish(key: a.secret)
        var server = try publisher.serve()
        defer { server.stop() }

        let early = IntegrationClient("early")
        try early.must(["remote", "add", "main", server.url, "--trust", a.pub])
        let installed = try early.json(["install", "logbook"])
        #expect(installed.status == 0 && installed.object["changed"] as? Int == 1, "\(installed.result.stderr)")

        // Rotate A → B: root-2 signed by A, which the real minisign accepts with A's public key.
        let rotate = try publisher.rotateKey(current: a.secret, new: b.secret)
        #expect(rotate.status == 0, "\(rotate.stderr)")
        let root2 = "\(publisher.publicDir)/keys/root-2.json"
        let minisign = try ProcessRunner.run("minisign", ["-Vm", root2, "-p", a.pub])
        #expect(minisign.status == 0, "\(minisign.stderr)")
        #expect(try ProcessRunner.run("minisign", ["-Vm", root2, "-p", b.pub]).status != 0, "root-2 must be signed by the old key, not by itself")
        #expect(try PublicKey(contentsOf: "\(publisher.publicDir)/keys/root.pub") == PublicKey(contentsOf: b.pub))

        // After the rotation the publisher refuses the old key, writing nothing.
        try publisher.writeCatalog([Self.logbook(version: "2", entry: "a lighthouse flashing twice")])
        let treeBefore = DirectorySnapshot(publisher.publicDir)
        let refused = try publisher.publish(key: a.secret)
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(DirectorySnapshot(publisher.publicDir) == treeBefore)
        try publisher.mustPublish(key: b.secret)
        #expect(try publisher.pointerVersion() == 2)

        // The client that pinned A follows root-2 and takes the B-signed catalog and its new version.
        let sync = try early.json(["sync"])
        #expect(sync.status == 0 && sync.object["changed"] as? Int == 1, "\(sync.result.stdout) \(sync.result.stderr)")
        let result = (sync.object["results"] as? [[String: Any]])?.first
        #expect(result?["status"] as? String == "updated" && result?["version"] as? String == "2")
        #expect(FileManager.default.fileExists(atPath: "\(early.home)/trust/main/root-2.json"))
        let hits = IntegrationHit.hits(try early.json(["search", "lighthouse flashing"]).object)
        #expect(hits.contains { $0.corpus == "logbook" && $0.version == "2" && $0.text.contains("lighthouse flashing twice") })

        // A client set up only now, pinning A (root 1), accepts the B-signed catalog too.
        let fresh = IntegrationClient("fresh")
        try fresh.must(["remote", "add", "main", server.url, "--trust", a.pub])
        let freshInstall = try fresh.json(["install", "logbook"])
        #expect(freshInstall.status == 0, "\(freshInstall.result.stderr)")
        #expect((freshInstall.object["results"] as? [[String: Any]])?.first?["version"] as? String == "2")

        // The host now serves a copy of the tree with catalog 3 signed by the retired key A: once
        // naming root 2 (as the real catalogs do), once naming root 1 (the key's own root).
        let retiredKey = try SecretKey(contentsOf: a.secret)
        for claimedRoot in [2, 1] {
            let evil = TempDirectory("evil-tree")
            try FileManager.default.removeItem(atPath: evil.path)
            try FileManager.default.copyItem(atPath: publisher.publicDir, toPath: evil.path)
            var catalog = try Catalog.decode(Data(contentsOf: URL(fileURLWithPath: "\(evil.path)/catalogs/2.json")))
            catalog.version = 3
            catalog.rootVersion = claimedRoot
            let bytes = try catalog.canonicalBytes()
            try evil.write("catalogs/3.json", bytes)
            try evil.write("catalogs/3.json.minisig", try retiredKey.sign(bytes, trustedComment: catalog.trustedComment).fileText)
            try FileIO.writeAtomically(try CanonicalJSON.encode(CatalogPointer(id: catalog.id, version: 3)), to: evil.url("catalog.json"))
            // The freshness document too: clients that accepted one follow it, not the pointer.
            let held = try TimestampDocument.decode(Data(contentsOf: URL(fileURLWithPath: evil.url(TreeLayout.timestamp))))
            let stamp = TimestampDocument(version: held.version + 1, issued: Date(), expires: Date().addingTimeInterval(86400),
                                          catalog: .init(id: catalog.id, version: 3, path: "catalogs/3.json", digest: SHA256.digest(bytes), size: Int64(bytes.count)))
            let stampBytes = try CanonicalJSON.encode(stamp)
            try evil.write(TreeLayout.timestamp + TreeLayout.signatureSuffix, try retiredKey.sign(stampBytes, trustedComment: stamp.trustedComment).fileText)
            try evil.write(TreeLayout.timestamp, stampBytes)

            // Same address, so the clients' remotes now lead to the tampered tree.
            let port = server.port
            #expect(server.stop() == 0)
            server = try publisher.serve(tree: evil.path, port: port)

            for client in [early, fresh] {
                let before = client.snapshot
                let r = try client.json(["sync"])
                #expect(r.status == 3, "root \(claimedRoot): \(r.result.stdout) \(r.result.stderr)")
                let error = (r.object["error"] as? [String: Any]) ?? ((r.object["results"] as? [[String: Any]])?.first?["error"] as? [String: Any])
                #expect(error?["code"] as? String == "signature", "root \(claimedRoot): \(r.result.stdout)")
                #expect(client.snapshot == before, "root \(claimedRoot): home changed:\n\(before)\n---\n\(client.snapshot)")
            }
        }

        // Both clients still search the version they have.
        for client in [early, fresh] {
            #expect(IntegrationHit.hits(try client.json(["search", "lighthouse flashing"]).object).contains { $0.version == "2" })
        }
    }
}
