import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusServer
import CorpusObjectStore

/// `corpusd serve PUBLIC_DIR`, its options in `spec` (the usage line is generated from them)
struct ServeCommand: ServerCommand {
    static let listen = Option.text("--listen", "HOST:PORT", "address to listen on (default 127.0.0.1:8080)")
    static let entitlementPub = Option.path("--entitlement-pub", "PUB", "public key (minisign .pub) that signs entitlement tokens")
    static let threads = Option.integer("--threads", "N", in: 1...64, "worker threads (default: CPUs, at most 4)")
    static let metricsListen = Option.text("--metrics-listen", "HOST:PORT", "serve /metrics (and /healthz) on this address only, not on --listen")
    static let metricsTokenFile = Option.path("--metrics-token-file", "FILE", "require Authorization: Bearer <the token in FILE> for /metrics")
    static let search = Option.path("--search", "HOME", "also answer GET /v1/search, /v1/documents and /v1/read over the corpora of this tree installed in HOME (a corpus home folder)")
    static let gateOnly = Option.flag("--gate-only", "serve catalogs and keys but redirect downloads: entitled ones (token checked) to presigned URLs of --private, free ones to --public-url")
    static let publicURL = Option.url("--public-url", "with --gate-only: the public tree's base URL (the bucket's, or the CDN's in front of it)")
    static let presignExpires = Option.duration("--presign-expires", .presignExpiry, "with --gate-only: how long a presigned URL is good, like 90s, 5m or 15m (default: 5m)")
    static let keyStore = Option.path("--key-store", "DIR", "answer GET /v1/keys/<payload> with the payload's file key wrapped to the asking device (token checked as for its bundle); DIR is `corpusd publish --key-store`")
    static let spec = CommandSpec(["serve"], "serve a published tree over HTTP; bundles of entitled corpora need a token signed by PUB",
                                  positionals: .exactly("PUBLIC_DIR").completing(.files),
                                  options: [listen, entitlementPub, threads, metricsListen, metricsTokenFile, gateOnly, ObjectStoreOptions.privateLocation,
                                            ObjectStoreOptions.endpoint, ObjectStoreOptions.region, publicURL, presignExpires, search, keyStore])

    let context: ServerContext

    func run() async throws -> Int32 {
        let root = cmd.positionals[0]
        var config = ServerConfiguration(root: root)
        do {
            (config.host, config.port) = try ServerConfiguration.parseListen(cmd.value(Self.listen) ?? "127.0.0.1:8080")
        } catch {
            throw UsageError.invalidValue(option: Self.listen.name, value: cmd.value(Self.listen) ?? "", expected: "HOST:PORT with an IPv4 host")
        }
        if let pub = cmd.value(Self.entitlementPub) { config.entitlementKey = try PublicKey(contentsOf: pub) }
        if let threads = cmd.int(Self.threads) { config.threads = threads }
        config.metrics = try Self.metricsAccess(cmd)
        if let home = cmd.value(Self.search) {
            guard FileManager.default.fileExists(atPath: home + "/corpora") else {
                throw ErrorReport(code: "not-found", message: "\(home) holds no installed corpora to search",
                                  hint: "install the tree's corpora there first: corpus --home \(home) install ID", kind: .notFound)
            }
            let search = EngineSearchBackend(home: home)
            config.search = search
            config.browse = EngineBrowseBackend(library: search.library)
        }
        config.storageRedirect = try Self.storageRedirect(cmd, environment: context.environment)
        if let store = cmd.value(Self.keyStore) {
            guard !KeyStore.isInside(store, root) else {
                throw ErrorReport(code: "key-store-inside-tree", message: "the key store \(store) is inside the served tree \(root)",
                                  hint: "keep the key store outside PUBLIC_DIR: every file there is served", kind: .usage)
            }
            do { config.keyStore = try KeyStore(directory: store, create: false) } catch {
                throw ErrorReport(code: "not-found", message: "\(store) is not a key store folder", hint: "give the folder `corpusd publish --key-store` wrote", kind: .notFound)
            }
        }
        // Lines are printable ASCII already (AccessLogEntry escapes the rest), so they bypass the
        // console's sanitising and go out in batches, off the request path.
        let accessLog = (!console.quiet && !console.json) ? AccessLogWriter() : nil
        if let accessLog { config.accessLog = { accessLog.append($0) } }
        defer { accessLog?.close() }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw ErrorReport(code: "not-found", message: "\(root) is not a folder", hint: "give the folder `corpusd publish --out` wrote", kind: .notFound)
        }

        // Catch the signals before any server thread exists; the handler only writes to a pipe.
        let signals = try ServeSignals()
        let server = try HTTPServer(config)
        let metricsURL = server.metricsPort.map { "http://\(config.metrics?.ownListenerHost ?? server.host):\($0)/metrics" }
        if console.json {
            console.emit(Serving(serving: root, url: "http://\(server.host):\(server.port)", metrics: metricsURL))
        } else {
            console.info("serving \(root) on http://\(server.host):\(server.port)")
            if let metricsURL { console.info("metrics on \(metricsURL)") }
        }
        if !console.quiet && !console.json {
            if config.entitlementKey == nil { console.err("note: no --entitlement-pub given; bundles of entitled corpora are refused (403)") }
            if config.metrics == nil && MetricsAccess.default(listenHost: config.host).place == .nowhere {
                console.err("note: /metrics is off on a non-loopback --listen; give --metrics-listen 127.0.0.1:PORT or --metrics-token-file FILE")
            }
        }
        // SIGHUP reopens PUBLIC_DIR by its path and re-reads the catalogs (and keeps serving);
        // SIGTERM and SIGINT stop.
        var signalName = await signals.next()
        while signalName == "SIGHUP" {
            if !console.quiet && !console.json { console.err("SIGHUP: reopening \(root) and re-reading its catalogs") }
            do {
                try server.reload()
            } catch {
                // Said even with --quiet: the operator asked for a tree the server is not serving.
                if !console.json { console.err("warning: \(error); still serving the tree opened before") }
            }
            signalName = await signals.next()
        }
        if !console.quiet && !console.json { console.err("\(signalName): finishing downloads in flight, then stopping") }
        let drained = server.stop(grace: .seconds(30))
        if !console.quiet && !console.json { console.err(drained ? "stopped" : "stopped (some downloads were cut off after 30 s)") }
        return 0
    }

    /// `{"serving", "url", "metrics"?}`: printed once the listeners are up.
    struct Serving: Encodable {
        let serving: String
        let url: String
        /// Where /metrics is served when it has a listener of its own.
        let metrics: String?
    }
}

extension ServeCommand {
    /// `--gate-only` with `--private`, `--endpoint`, `--public-url` (and the credentials the
    /// environment names); any of those without `--gate-only` is a mistake.
    static func storageRedirect(_ cmd: ParsedCommand, environment: CommandEnvironment) throws -> StorageRedirect? {
        let storageOptions = [ObjectStoreOptions.privateLocation, ObjectStoreOptions.endpoint, ObjectStoreOptions.region, publicURL, presignExpires]
        guard cmd.has(gateOnly) else {
            if let given = storageOptions.first(where: cmd.has) {
                throw UsageError.invalidValue(option: given.name, value: cmd.value(given) ?? "", expected: "to be given with --gate-only")
            }
            return nil
        }
        guard let privateText = cmd.value(ObjectStoreOptions.privateLocation) else {
            throw UsageError.invalidValue(option: ObjectStoreOptions.privateLocation.name, value: "", expected: "the private location (required with --gate-only)")
        }
        if let base = cmd.value(publicURL) {
            try URLCredentials.refuse(base, option: publicURL.name, instead: "give the public tree's URL alone: every client is sent it in redirects")
        }
        // Its value is an http(s) URL with a host (the parser checked it); it must be given.
        guard let base = cmd.value(publicURL) else {
            throw UsageError.invalidValue(option: publicURL.name, value: "", expected: "the http(s) base URL of the public tree (required with --gate-only)")
        }
        let privateLocation = try ObjectStoreOptions.location(privateText, option: ObjectStoreOptions.privateLocation)
        let expiry = cmd.duration(presignExpires) ?? 300
        let (endpoint, credentials) = try ObjectStoreOptions.service(cmd, environment: environment.values)
        return StorageRedirect(presigner: SigV4Presigner(credentials: credentials, endpoint: endpoint), privateLocation: privateLocation,
                               publicBase: base, expiry: Int(expiry))
    }

    /// `--metrics-listen` and `--metrics-token-file`; nil leaves the default (`MetricsAccess.default`).
    static func metricsAccess(_ cmd: ParsedCommand) throws -> MetricsAccess? {
        let token = try cmd.value(Self.metricsTokenFile).map(readMetricsToken)
        if let text = cmd.value(Self.metricsListen) {
            do {
                let (host, port) = try ServerConfiguration.parseListen(text)
                return MetricsAccess(place: .ownListener(host: host, port: port), token: token)
            } catch {
                throw UsageError.invalidValue(option: Self.metricsListen.name, value: text, expected: "HOST:PORT with an IPv4 host")
            }
        }
        return token.map { MetricsAccess(place: .mainListener, token: $0) }
    }

    /// The scrape token: the file's one line. Its content never appears in a message.
    static func readMetricsToken(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ErrorReport(code: "not-found", message: "cannot read the metrics token file \(path)",
                              hint: "write a random token into it, e.g. openssl rand -hex 32 > \(path)", kind: .notFound)
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard (MetricsAccess.minTokenLength...4096).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw UsageError.invalidValue(option: Self.metricsTokenFile.name, value: path,
                                          expected: "a file holding one token of \(MetricsAccess.minTokenLength) to 4096 printable characters without spaces")
        }
        return token
    }
}
