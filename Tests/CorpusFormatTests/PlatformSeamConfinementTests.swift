import Foundation
import Testing

/// docs/apple.md: OpenSSL, OpenBLAS and libzip are reached only through the seams, so that an Apple
/// build swaps them for CryptoKit and Accelerate in one place each. This reads the package's
/// sources (in the clone) and fails when a file outside the seam calls either library.
@Suite struct PlatformSeamConfinementTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files allowed to call OpenSSL, each with the reason docs/apple.md gives.
    static let openSSLFiles: Set<String> = [
        "Sources/CorpusFormat/OpenSSLCryptoBackend.swift", // the seam's Linux side: hashing, Ed25519, random, HMAC
        // age's primitives, Linux side; their CryptoKit twins are in CryptoKitAgePrimitives.swift.
        "Sources/CorpusFormat/OpenSSLChaCha20Poly1305.swift",
        "Sources/CorpusFormat/OpenSSLX25519.swift",
    ]
    static let openSSLMarkers = ["import CCrypto", "EVP_", "ED25519", "RAND_bytes", "HMAC(", "OPENSSL_", "ERR_get_error"]

    static func swiftSources() throws -> [(path: String, text: String)] {
        let root = packageRoot.path
        var out: [(String, String)] = []
        for top in ["Sources", "Benchmarks", "Tests/CorpusTestSupport"] {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + top) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = top + "/" + relative
                // Comments may name what they do not call (`EVP_blake2b512` as a reference).
                let code = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                    .split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }
                    .joined(separator: "\n")
                out.append((path, code))
            }
        }
        return out
    }

    @Test func openSSLIsCalledOnlyFromTheSeam() throws {
        let sources = try Self.swiftSources()
        #expect(sources.count > 100, "found \(sources.count) Swift files under \(Self.packageRoot.path)")
        let offenders = sources.filter { file in
            !Self.openSSLFiles.contains(file.path) && Self.openSSLMarkers.contains { file.text.contains($0) }
        }.map(\.path)
        #expect(offenders.isEmpty, "OpenSSL used outside the crypto seam: \(offenders)")
    }

    @Test func openBLASIsImportedOnlyBehindTheAccelerateSwitch() throws {
        let users = try Self.swiftSources().filter { $0.text.contains("import COpenBLAS") || $0.text.contains("openblas_") }
        // The kernels import one or the other; OpenBLAS's lazy loader (OpenBLAS.swift) is Linux's side.
        #expect(users.map(\.path).sorted() == ["Sources/CorpusEngine/EncoderKernels.swift", "Sources/CorpusEngine/OpenBLAS.swift"])
        let kernels = try #require(users.first { $0.path.hasSuffix("EncoderKernels.swift") }).text
        let guarded = "#if canImport(Accelerate)\ninternal import Accelerate\n#else\ninternal import COpenBLAS\n#endif"
        #expect(kernels.contains(guarded))
        let loader = try #require(users.first { $0.path.hasSuffix("OpenBLAS.swift") }).text
        #expect(loader.contains("#if !canImport(Accelerate)\nimport Foundation\ninternal import COpenBLAS\n") && loader.hasSuffix("#endif\n"))
    }

    /// libzip (`CZip`) is a Linux-only dependency of `CorpusFormat`: every file of it that imports
    /// libzip is compiled only off Apple platforms, where the zlib reader is the only one, and not
    /// in a `-DCORPUS_APPLE_SEAMS` build (scripts/apple-seams.sh).
    @Test func libzipIsImportedInCorpusFormatOnlyOffApplePlatforms() throws {
        let users = try Self.swiftSources().filter { $0.path.hasPrefix("Sources/CorpusFormat/") && $0.text.contains("import CZip") }
        #expect(users.map(\.path).sorted() == ["BundleWriter", "DeltaWriter", "EmbedderArtifactWriter", "ZipArchive", "ZipDeflatedSource", "ZipReader"]
            .map { "Sources/CorpusFormat/\($0).swift" })
        for file in users where !file.path.hasSuffix("ZipReader.swift") {
            #expect(file.text.hasPrefix(Self.offApple) && file.text.hasSuffix("#endif\n"), "\(file.path)")
        }
        let reader = try #require(users.first { $0.path.hasSuffix("ZipReader.swift") }).text
        #expect(reader.contains(Self.offApple + "internal import CZip\n#endif"))
    }

    static let offApple = "#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS\n"

    /// libcurl is the client's transport on Linux only: in `CorpusSync` one file imports it, compiled
    /// only off Apple platforms and not in a `-DCORPUS_APPLE_SEAMS` build; nothing in the engine,
    /// the formats or the URLSession transport does.
    @Test func libcurlIsImportedByTheClientOnlyInItsLinuxTransport() throws {
        let users = try Self.swiftSources().filter {
            ["Sources/CorpusSync/", "Sources/CorpusEngine/", "Sources/CorpusFormat/", "Sources/CorpusHTTP/", "Sources/CorpusURLSession/"]
                .contains(where: $0.path.hasPrefix) && ($0.text.contains("import CCurl") || $0.text.contains("import CorpusCurl"))
        }
        #expect(users.map(\.path) == ["Sources/CorpusSync/CurlTransport.swift"])
        for file in users { #expect(file.text.hasPrefix(Self.offApple) && file.text.hasSuffix("#endif\n"), "\(file.path)") }
    }
}
