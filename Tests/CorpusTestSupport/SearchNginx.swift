import Foundation

/// The real nginx with deploy/nginx-search.conf in front of several `corpusd serve --search`
/// processes (its upstream), as an operator scales search. Stopped on `stop()`/deinit.
public final class SearchNginx: @unchecked Sendable {
    public let nginx: ServerProcess
    public let runtime: TempDirectory
    public var port: UInt16 { nginx.port }
    public var accessLog: String { (try? String(contentsOfFile: runtime.url("access.log"), encoding: .utf8)) ?? "" }

    public init(upstreams: [UInt16], packageRoot: String) throws {
        runtime = TempDirectory("search-nginx")
        let port = freeLoopbackPort()
        let conf = try String(contentsOfFile: packageRoot + "/deploy/nginx-search.conf", encoding: .utf8)
            .replacingOccurrences(of: "@NGINX_USER@", with: "nobody nogroup")
            .replacingOccurrences(of: "@RUNTIME_DIR@", with: runtime.path)
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "        @SEARCH_SERVERS@", with: "        " + upstreams.map { "server 127.0.0.1:\($0);" }.joined(separator: "\n        "))
        let confPath = try runtime.write("nginx.conf", conf)
        guard let binary = MirrorNginx.binary else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "nginx"]) }
        nginx = try ServerProcess(binary, ["-p", runtime.path, "-e", runtime.url("error.log"), "-c", confPath, "-g", "daemon off;"], port: port)
    }

    public func stop() { nginx.stop() }

    deinit { stop() }
}
