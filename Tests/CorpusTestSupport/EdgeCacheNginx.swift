import Foundation

/// The real nginx as an edge cache (`proxy_cache`) in front of an S3 endpoint's public prefix,
/// as a CDN stands in front of a bucket: it caches what the objects' `Cache-Control` allows
/// (content-addressed files for a year, never the `no-cache` pointer without revalidating) and
/// says what it did in `X-Cache-Status`. The configuration is docs/operations.md's.
public final class EdgeCacheNginx: @unchecked Sendable {
    public let nginx: ServerProcess
    public let runtime: TempDirectory
    public var url: String { nginx.url }

    /// `upstream` is `http://host:port`, `prefix` the bucket path of the tree (`/bucket/prefix`).
    public init(upstream: String, prefix: String, packageRoot: String) throws {
        runtime = TempDirectory("edge-cache")
        let port = freeLoopbackPort()
        let conf = try String(contentsOfFile: packageRoot + "/deploy/nginx-edge-cache.conf", encoding: .utf8)
            .replacingOccurrences(of: "@NGINX_USER@", with: "nobody nogroup")
            .replacingOccurrences(of: "@RUNTIME_DIR@", with: runtime.path)
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "@S3_ORIGIN@", with: upstream)
            .replacingOccurrences(of: "@TREE_PREFIX@", with: prefix)
        let confPath = try runtime.write("nginx.conf", conf)
        // nobody must be able to write the cache folder.
        try FileManager.default.createDirectory(atPath: runtime.url("cache"), withIntermediateDirectories: true)
        chmod(runtime.path, 0o777)
        chmod(runtime.url("cache"), 0o777)
        guard let binary = MirrorNginx.binary else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "nginx"]) }
        nginx = try ServerProcess(binary, ["-p", runtime.path, "-e", runtime.url("error.log"), "-c", confPath, "-g", "daemon off;"], port: port)
    }

    public func stop() { nginx.stop() }

    deinit { stop() }
}
