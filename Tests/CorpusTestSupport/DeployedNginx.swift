import Foundation

/// One of `deploy/`'s nginx configurations filled in for a test, as an operator would fill it:
/// the placeholders every one of them has (`@NGINX_USER@` nobody, `@RUNTIME_DIR@` the runtime
/// folder, `@LISTEN@` a free loopback port), then the configuration's own; `start` runs the real
/// nginx with it in the foreground, its error log in the runtime folder.
public struct DeployedNginx: Sendable {
    public static var binary: String? { try? ProcessRunner.which("nginx") }

    /// The configuration as written to `confPath`.
    public let text: String
    public let confPath: String
    public let port: UInt16
    private let runtime: String

    public init(_ config: String, packageRoot: String, runtime: TempDirectory, placeholders: [String: String]) throws {
        port = freeLoopbackPort()
        var text = try String(contentsOfFile: "\(packageRoot)/deploy/\(config)", encoding: .utf8)
            .replacingOccurrences(of: "@NGINX_USER@", with: "nobody nogroup")
            .replacingOccurrences(of: "@RUNTIME_DIR@", with: runtime.path)
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
        for (name, value) in placeholders.sorted(by: { $0.key < $1.key }) {
            text = text.replacingOccurrences(of: "@\(name)@", with: value)
        }
        self.text = text
        confPath = try runtime.write("nginx.conf", text)
        self.runtime = runtime.path
    }

    /// nginx's arguments for this configuration (`-t` before them checks it).
    public var arguments: [String] { ["-p", runtime, "-e", "\(runtime)/error.log", "-c", confPath] }

    public func start() throws -> ServerProcess {
        guard let binary = Self.binary else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "nginx"]) }
        return try ServerProcess(binary, arguments + ["-g", "daemon off;"], port: port)
    }
}
