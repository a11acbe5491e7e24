import Foundation
@testable import CorpusFormat

/// Seed corpora come from the targets themselves, made with the project's own writers and test
/// fixtures: `scripts/fuzz-seeds.sh` runs each fuzzer with `FUZZ_WRITE_SEEDS=DIR`, and
/// `LLVMFuzzerInitialize` writes the seeds there and exits before any fuzzing starts.
enum FuzzSeeds {
    static func writeIfAsked(_ make: () throws -> [(String, [UInt8])]) {
        guard let dir = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"], !dir.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let seeds = try make()
            for (name, bytes) in seeds {
                try Data(bytes).write(to: URL(fileURLWithPath: "\(dir)/\(name)"))
            }
            print("wrote \(seeds.count) seeds to \(dir)")
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("seed generation failed: \(error)\n".utf8))
            exit(1)
        }
    }
}

/// The one signing key every target that verifies signatures trusts; fixed, so seeds signed by
/// it in one run verify in the next.
enum FuzzKeys {
    static let seed: [UInt8] = (0..<32).map { UInt8($0 &* 7 &+ 3) }
    static let secret: SecretKey = try! SecretKey(keyID: KeyID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]), seed: seed)
    static var trusted: [PublicKey] { [secret.publicKey] }

    /// The same key, made once, for targets that sign each input (the fuzz build is Linux only).
    nonisolated(unsafe) static let signing = try! PKey(seed: seed)

    /// An Ed25519 signature of `message` by `secret`.
    static func sign(_ message: [UInt8]) -> [UInt8] {
        try! message.withUnsafeBytes { try OpenSSLCryptoBackend.ed25519Sign($0, key: signing) }
    }
}
