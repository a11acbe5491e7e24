import CorpusTestSupport
import Foundation

/// A real nginx serving HTTPS (HTTP/2) on loopback with a throwaway certificate, for the
/// transport rows that need TLS: https→http downgrade redirects, and verification staying on.
final class NginxTLSFront: @unchecked Sendable {
    let directory = TempDirectory("nginx")
    let port = freeLoopbackPort()
    /// The self-signed certificate, to hand to `HTTPClientConfiguration.caBundle`.
    var certificate: String { directory.url("cert.pem") }
    var baseURL: String { "https://127.0.0.1:\(port)" }
    private let process = Process()

    static var isAvailable: Bool { ProcessRunner.has("nginx") && ProcessRunner.has("openssl") }

    /// - Parameters:
    ///   - root: folder served at `/`.
    ///   - downgradeTo: `/downgrade/<path>` answers 302 to this plain-http base + `/<path>`.
    init(root: String, downgradeTo: String) throws {
        let d = directory.path
        let gen = try ProcessRunner.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                    "-keyout", "\(d)/key.pem", "-out", "\(d)/cert.pem", "-days", "2",
                                                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        guard gen.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: gen.stderr]) }
        let conf = """
        daemon off; master_process off; worker_processes 1; pid \(d)/nginx.pid; error_log \(d)/error.log;
        events { worker_connections 64; }
        http {
          access_log off;
          client_body_temp_path \(d)/body; proxy_temp_path \(d)/proxy; fastcgi_temp_path \(d)/fcgi;
          uwsgi_temp_path \(d)/uwsgi; scgi_temp_path \(d)/scgi;
          server {
            listen 127.0.0.1:\(port) ssl http2;
            ssl_certificate \(d)/cert.pem; ssl_certificate_key \(d)/key.pem;
            root \(root);
            location /downgrade/ { rewrite ^/downgrade/(.*)$ \(downgradeTo)/$1 redirect; }
          }
        }
        """
        try directory.write("nginx.conf", conf)
        process.executableURL = URL(fileURLWithPath: try ProcessRunner.which("nginx"))
        process.arguments = ["-p", d, "-c", "\(d)/nginx.conf", "-e", "\(d)/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when the port accepts a connection (bounded: nginx starts in milliseconds).
        for _ in 0..<500 {
            if accepts() { break }
            usleep(10_000)
        }
    }

    deinit {
        // SIGKILL: a child spawned from a Dispatch thread may inherit a mask that blocks SIGTERM.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func accepts() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = port.bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
