// swift-tools-version:6.0
import PackageDescription

/// A system-library target for a Debian -dev package: a modulemap and a one-line shim.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "CorpusSync",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CorpusFormat", targets: ["CorpusFormat"]),
        .library(name: "CorpusEngine", targets: ["CorpusEngine"]),
        .library(name: "CorpusSync", targets: ["CorpusSync"]),
        .library(name: "CorpusURLSession", targets: ["CorpusURLSession"]),
        .library(name: "CorpusPublisher", targets: ["CorpusPublisher"]),
        .library(name: "CorpusServer", targets: ["CorpusServer"]),
        .library(name: "CorpusMirror", targets: ["CorpusMirror"]),
        .executable(name: "corpus", targets: ["corpus"]),
        .executable(name: "corpusd", targets: ["corpusd"]),
    ],
    targets: [
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        systemLibrary("CZip", pkgConfig: "libzip", apt: "libzip-dev"),
        systemLibrary("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        // ISA-L's deflate, for the pack of a bundle that keeps its index (ParallelDeflate.Engine.isal).
        systemLibrary("CISAL", pkgConfig: "libisal", apt: "libisal-dev"),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        // Headers only, like COpenBLAS: libcurl is loaded with dlopen at the first HTTP handle
        // (CCurl/shim.h), so a `corpus search` does not load it and its ~28 libraries at start.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        systemLibrary("CXML2", pkgConfig: "libxml-2.0", apt: "libxml2-dev"),
        // Headers only: libopenblas is loaded with dlopen when a model is first used (OpenBLAS.swift),
        // so processes that never run a model never start its thread pool.
        .systemLibrary(name: "COpenBLAS", providers: [.apt(["libopenblas-dev"])]),
        // Headers only: Linux system calls Glibc does not wrap (openat2 for the server's path resolution).
        .systemLibrary(name: "CLinux"),

        // OpenSSL, libzip and OpenBLAS only where the seams pick them (Linux): on Apple platforms the
        // formats verify with CryptoKit, read zips with zlib alone (the writers, publisher-side, are
        // compiled only with libzip) and the engine multiplies with Accelerate (docs/apple.md).
        .target(name: "CorpusFormat", dependencies: [.target(name: "CCrypto", condition: .when(platforms: [.linux])),
                                                     .target(name: "CZip", condition: .when(platforms: [.linux])), "CZlib",
                                                     .target(name: "CISAL", condition: .when(platforms: [.linux])),
                                                     .target(name: "CLinux", condition: .when(platforms: [.linux]))]),
        // Our own C: the few-row matrix product of a query (FewRowProduct.swift), in AVX-512 and AVX2
        // kernels picked at run time, where intrinsics say what Swift's SIMD types cannot.
        .target(name: "CEncoderKernels"),
        .target(name: "CorpusEngine", dependencies: ["CorpusFormat", "CSQLite", .target(name: "COpenBLAS", condition: .when(platforms: [.linux])),
                                                     .target(name: "CEncoderKernels", condition: .when(platforms: [.linux]))]),
        // The one owner of a libcurl easy handle, shared by the client's HTTP and the object store.
        // Its errors (`CurlOptionError`) are CorpusHTTP's, which both users' errors carry.
        .target(name: "CorpusCurl", dependencies: ["CCurl", "CorpusHTTP"]),
        // The client's HTTP: the value types and the transport seam (CorpusHTTP), libcurl's
        // transport in CorpusSync on Linux, URLSession's in CorpusURLSession, which CorpusSync
        // uses on Apple platforms only (docs/apple.md "HTTP transport").
        .target(name: "CorpusHTTP"),
        .target(name: "CorpusURLSession", dependencies: ["CorpusHTTP"]),
        .target(name: "CorpusSync", dependencies: ["CorpusFormat", "CorpusEngine", "CorpusHTTP",
                                                   .target(name: "CorpusCurl", condition: .when(platforms: [.linux])),
                                                   .target(name: "CorpusURLSession", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS]))]),
        .target(name: "CorpusPublisher", dependencies: ["CorpusFormat", "CorpusEngine", "CXML2", "CZip"]),
        .target(name: "CorpusServer", dependencies: ["CorpusFormat", "CMicroHTTPD", .target(name: "CLinux", condition: .when(platforms: [.linux]))]),
        .target(name: "CorpusMirror", dependencies: ["CorpusFormat", "CorpusSync"]),
        // S3-compatible object storage: requests signed by libcurl (CURLOPT_AWS_SIGV4) and the
        // upload of a published tree in the order its readers rely on.
        // CorpusHTTP for `RequestFieldCheck` and `CurlOptionError`, nothing of the client's HTTP.
        .target(name: "CorpusObjectStore", dependencies: ["CorpusFormat", "CorpusHTTP", "CorpusCurl"]),
        // The command line: a kit both executables share, then each executable's commands. The
        // client's never reach the server or publisher, so `corpus` links neither libmicrohttpd
        // nor libxml2. Every module a CLI module imports is listed (CorpusFormat's values; for
        // corpusd the mirror's API, made of CorpusSync's types, and the publisher's SQLiteError),
        // not left to come along with another dependency.
        .target(name: "CorpusCLIKit", dependencies: ["CorpusFormat", "CorpusHTTP"]),
        .target(name: "CorpusClientCLI", dependencies: ["CorpusCLIKit", "CorpusFormat", "CorpusSync", "CorpusEngine"]),
        .target(name: "CorpusServerCLI", dependencies: ["CorpusCLIKit", "CorpusFormat", "CorpusEngine", "CorpusPublisher", "CorpusServer", "CorpusMirror", "CorpusSync", "CorpusObjectStore", "CorpusHTTP"]),
        .executableTarget(name: "corpus", dependencies: ["CorpusClientCLI", "CorpusSync"]),
        .executableTarget(name: "corpusd", dependencies: ["CorpusServerCLI"]),
        // Test support for its loopback port only: one free-port helper for tests and benchmarks.
        .executableTarget(name: "corpus-bench", dependencies: ["CorpusFormat", "CorpusEngine", "CorpusPublisher", "CorpusSync", "CorpusURLSession",
                                                              "CorpusTestSupport"],
                          path: "Benchmarks/corpus-bench"),

        .target(name: "CorpusTestSupport", dependencies: ["CorpusFormat", "CorpusEngine", "CZip"], path: "Tests/CorpusTestSupport"),
        .testTarget(name: "CorpusFormatTests", dependencies: ["CorpusFormat", "CorpusTestSupport", "CZip"]),
        .testTarget(name: "CorpusEngineTests", dependencies: ["CorpusEngine", "CorpusTestSupport"]),
        .testTarget(name: "CorpusPublisherTests", dependencies: ["CorpusPublisher", "CorpusTestSupport"]),
        .testTarget(name: "CorpusSyncTests", dependencies: ["CorpusSync", "CorpusURLSession", "CorpusTestSupport"]),
        // The URLSession transport's parts (the mailbox's cap, the delegate's cancel) without a
        // server; its transfers are CorpusSyncTests', run over both transports.
        .testTarget(name: "CorpusURLSessionTests", dependencies: ["CorpusURLSession"]),
        // The checked libcurl wrapper on its own (a refused option), without a server.
        .testTarget(name: "CorpusCurlTests", dependencies: ["CorpusCurl", "CorpusHTTP"]),
        // CorpusPublisher for its catalog part writer: trees with parts as `corpusd publish` writes them.
        .testTarget(name: "CorpusServerTests", dependencies: ["CorpusServer", "CorpusPublisher", "CorpusTestSupport"]),
        // The upstream of the mirror tests is a real `HTTPServer`, hence CorpusServer.
        .testTarget(name: "CorpusMirrorTests", dependencies: ["CorpusMirror", "CorpusServer", "CorpusSync", "CorpusTestSupport"]),
        .testTarget(name: "CorpusObjectStoreTests", dependencies: ["CorpusObjectStore", "CorpusFormat", "CorpusTestSupport"]),
        .testTarget(name: "CorpusCLITests", dependencies: ["CorpusCLIKit", "CorpusClientCLI", "CorpusServerCLI", "CorpusFormat", "CorpusEngine",
                                                           "CorpusSync", "CorpusPublisher", "CorpusServer", "CorpusMirror", "CorpusTestSupport", "CorpusObjectStore"]),
        .testTarget(name: "IntegrationTests", dependencies: ["CorpusFormat", "CorpusPublisher", "CorpusTestSupport"]),
        // docs/library.md's example, compiled against what an app links.
        .testTarget(name: "LibraryExampleTests", dependencies: ["CorpusSync", "CorpusEngine", "CorpusFormat", "CorpusTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
