import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport

/// `corpus status` warns weeks before a catalog's newest root expires (TUF §5.3.10 refuses it
/// afterwards), so its holders can sign a new root while clients still accept the tree.
@Suite struct RootExpiryWarningTests {
    /// A tree at root 2 (roles) expiring `in` seconds from now, served, and a client that accepted it.
    func status(rootExpiringIn seconds: TimeInterval) throws -> [String: Any] {
        let tree = try StaticTreeFixture()
        let roles = try StaticTreeFixture.Roles.generate(rootKeys: 1, threshold: 1)
        try tree.writeRoleRoot(version: 2, roles: roles, signers: [tree.rootKeys[0], roles.root[0]], expires: Date().addingTimeInterval(seconds))
        try tree.publish(version: 2, signer: roles.catalog[0], rootVersion: 2)
        try tree.writeTimestamp(version: 1, catalogVersion: 2, signer: roles.timestamp[0])
        let server = try MisbehavingServer(root: tree.root)
        defer { server.stop() }
        let pub = tree.directory.url("keys/root.pub")
        let client = IntegrationClient("expiry")
        try client.must(["remote", "add", "main", server.baseURL, "--trust", pub])
        let r = try client.json(["status"])
        #expect(r.status == 0, "\(r.result.stderr)")
        let catalog = (r.object["catalogs"] as? [[String: Any]])?.first ?? [:]
        #expect(catalog["root_version"] as? Int == 2)
        #expect(catalog["root_expires"] as? String != nil && catalog["timestamp_expires"] as? String != nil)
        return catalog
    }

    @Test func tenDaysBeforeTheRootExpiresStatusWarns() throws {
        let catalog = try status(rootExpiringIn: 10 * 86400 + 3600)
        let warning = catalog["warning"] as? String ?? ""
        #expect(warning.hasPrefix("root version 2 expires at ") && warning.contains("(in 10 days)"), "\(catalog)")
    }

    @Test func sixtyDaysBeforeItDoesNot() throws {
        let catalog = try status(rootExpiringIn: 60 * 86400)
        #expect(catalog["warning"] == nil, "\(catalog)")
    }
}
