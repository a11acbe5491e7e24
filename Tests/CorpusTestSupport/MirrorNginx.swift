import Foundation

/// The real nginx serving a published tree with deploy/nginx.conf (as a mirror host would), its
/// `auth_request` answered by a `corpusd serve` of the same tree. Both are stopped on `stop()`/deinit.
public final class MirrorNginx: @unchecked Sendable {
    public let nginx: ServerProcess
    public let auth: ServerProcess
    public let runtime: TempDirectory
    public var url: String { nginx.url }
    public var accessLog: String { (try? String(contentsOfFile: runtime.url("access.log"), encoding: .utf8)) ?? "" }

    public static var binary: String? { DeployedNginx.binary }

    /// Fills in deploy/nginx.conf's placeholders for `tree` and starts nginx and its auth backend.
    /// nginx workers run as `nobody`: the tree and its parent folders must be world-readable.
    public init(tree: String, packageRoot: String, entitlementPub: String? = nil) throws {
        var args = ["serve", tree, "--listen", "127.0.0.1:{PORT}", "--quiet"]
        if let entitlementPub { args += ["--entitlement-pub", entitlementPub] }
        auth = try ServerProcess(BuiltProducts.corpusd, args)
        runtime = TempDirectory("mirror-nginx")
        nginx = try DeployedNginx("nginx.conf", packageRoot: packageRoot, runtime: runtime,
                                  placeholders: ["PUBLIC_DIR": tree, "CORPUSD": "127.0.0.1:\(auth.port)"]).start()
    }

    public func stop() {
        nginx.stop()
        auth.stop()
    }

    deinit { stop() }
}
