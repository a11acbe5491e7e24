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
        // nobody must be able to write the cache folder.
        try FileManager.default.createDirectory(atPath: runtime.url("cache"), withIntermediateDirectories: true)
        chmod(runtime.path, 0o777)
        chmod(runtime.url("cache"), 0o777)
        nginx = try DeployedNginx("nginx-edge-cache.conf", packageRoot: packageRoot, runtime: runtime,
                                  placeholders: ["S3_ORIGIN": upstream, "TREE_PREFIX": prefix]).start()
    }

    public func stop() { nginx.stop() }

    deinit { stop() }
}
