import Foundation

/// The real nginx serving a published tree with deploy/nginx.conf (as a mirror host would), its
/// `auth_request` answered by a `corpusd serve` of the same tree. Both are stopped on `stop()`/deinit.
public final class MirrorNginx: @unchecked Sendable {
    public let nginx: ServerProcess
    public let auth: ServerProcess
    public let runtime: TempDirectory
    public var url: String { nginx.url }
    public var accessLog: String { (try? String(contentsOfFile: runtime.url("access.log"), encoding: .utf8)) ?? "" }

    public static var binary: String? { try? ProcessRunner.which("nginx") }

    /// Fills in deploy/nginx.conf's placeholders for `tree` and starts nginx and its auth backend.
    /// nginx workers run as `nobody`: the tree and its parent folders must be world-readable.
    public init(tree: String, packageRoot: String, entitlementPub: String? = nil) throws {
        var args = ["serve", tree, "--listen", "127.0.0.1:{PORT}", "--quiet"]
        if let entitlementPub { args += ["--entitlement-pub", entitlementPub] }
        auth = try ServerProcess(BuiltProducts.corpusd, args)
        runtime = TempDirectory("mirror-nginx")
        let port = freeLoopbackPort()
        let conf = try String(contentsOfFile: packageRoot + "/deploy/nginx.conf", encoding: .utf8)
            .replacingOccurrences(of: "@NGINX_USER@", with: "nobody nogroup")
            .replacingOccurrences(of: "@RUNTIME_DIR@", with: runtime.path)
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "@PUBLIC_DIR@", with: tree)
            .replacingOccurrences(of: "@CORPUSD@", with: "127.0.0.1:\(auth.port)")
        let confPath = try runtime.write("nginx.conf", conf)
        guard let binary = Self.binary else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "nginx"]) }
        nginx = try ServerProcess(binary, ["-p", runtime.path, "-e", runtime.url("error.log"), "-c", confPath, "-g", "daemon off;"], port: port)
    }

    public func stop() {
        nginx.stop()
        auth.stop()
    }

    deinit { stop() }
}
