import Testing
import CorpusFormat
import CorpusTestSupport
import Foundation
@testable import CorpusSync

/// The root rotation chain: root N+1 is accepted only with a valid signature by root N. The older
/// test's intruder signs with its own key id, so it is stopped by the key id alone; these forge
/// around that, and would be accepted if the signature itself were not checked.
@Suite struct RootChainForgeryTests {
    /// Publishes catalog 2 signed by `newKey` and naming root 2, as a successful rotation would.
    func publishUnder(_ env: SyncTestEnvironment, _ newKey: SecretKey) throws {
        try env.tree.publish(version: 2, signer: newKey, rootVersion: 2)
    }

    @Test func aRootDocumentClaimingThePreviousRootsKeyIDButSignedByAnotherKeyIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)

        let intruder = try SecretKey.generate()
        try env.tree.writeRootDocument(version: 2, key: intruder.publicKey, signer: intruder)
        // Relabel the intruder's signature with root 1's key id: only the signature bytes can tell.
        let sigPath = env.tree.root + "/" + TreeLayout.rootKeyPath(version: 2) + TreeLayout.signatureSuffix
        let genuine = try Signature(text: String(contentsOfFile: sigPath, encoding: .utf8))
        let relabelled = Signature(algorithm: genuine.algorithm, keyID: env.tree.rootKeys[0].keyID, signature: genuine.signature,
                                   untrustedComment: genuine.untrustedComment, trustedComment: genuine.trustedComment,
                                   globalSignature: genuine.globalSignature)
        try env.tree.directory.write(TreeLayout.rootKeyPath(version: 2) + TreeLayout.signatureSuffix, relabelled.fileText)
        try publishUnder(env, intruder)

        await env.expectRefusal(.signatureInvalid(what: "the signed file")) { try await env.fetcher().refresh(remote) }
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == 1)
    }

    @Test func aRootDocumentEditedAfterSigningIsRefused() async throws {
        let env = try SyncTestEnvironment()
        let origin = try env.server()
        let remote = try env.remote(origin)
        _ = try await env.fetcher().refresh(remote)

        // A genuine rotation to K2, signed by root 1 ...
        let k2 = try SecretKey.generate()
        try env.tree.writeRootDocument(version: 2, key: k2.publicKey, signer: env.tree.rootKeys[0])
        // ... whose document is then edited to name the intruder's key, keeping root 1's signature.
        let intruder = try SecretKey.generate()
        let edited = try CanonicalJSON.encode(RootKeyDocument(version: 2, key: intruder.publicKey, created: env.tree.created))
        try env.tree.directory.write(TreeLayout.rootKeyPath(version: 2), edited)
        try publishUnder(env, intruder)

        await env.expectRefusal(.signatureInvalid(what: "the signed file")) { try await env.fetcher().refresh(remote) }
        #expect(try TrustStore(home: env.home).currentRoot(for: remote).version == 1)
    }

    @Test func aPlantedLinkInTheTrustFolderIsNotFollowed() async throws {
        // The same check guards the stored chain: a forged root-2 written into trust/ stops the chain.
        let env = try SyncTestEnvironment()
        let remote = try env.remote(try env.server())
        let intruder = try SecretKey.generate()
        let doc = try CanonicalJSON.encode(RootKeyDocument(version: 2, key: intruder.publicKey, created: env.tree.created))
        let sig = try intruder.sign(doc, trustedComment: "root:2")
        let forged = Signature(algorithm: sig.algorithm, keyID: env.tree.rootKeys[0].keyID, signature: sig.signature,
                               untrustedComment: sig.untrustedComment, trustedComment: sig.trustedComment, globalSignature: sig.globalSignature)
        try FileIO.createDirectory(env.home.trust("main"))
        try doc.write(to: URL(fileURLWithPath: env.home.trust("main") + "/root-2.json"))
        try Data(forged.fileText.utf8).write(to: URL(fileURLWithPath: env.home.trust("main") + "/root-2.json.minisig"))
        #expect(throws: SyncError.signatureInvalid(what: "the signed file")) { try TrustStore(home: env.home).currentRoot(for: remote) }
    }
}
