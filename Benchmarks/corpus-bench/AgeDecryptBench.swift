import CorpusFormat
import Foundation

/// Streams a 1 GiB age file (header + payload, made by our encryptor) through
/// `AgeFileDecryptor` into a sink that drops the plaintext, printing throughput and peak RSS as
/// `key=value` lines for scripts/bench-age.sh, which times `age -d` and `openssl speed` beside it.
///
/// Usage: `corpus-bench age-decrypt [--cache DIR] [--rounds N]`
/// The file and its identity (in age's identity format) are made once under the cache folder.
enum AgeDecryptBench {
    static let plaintextSize = 1 << 30

    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let cache = options.value("--cache") ?? ".bench/age-decrypt"
        let rounds = options.int("--rounds", default: 3)
        try options.refuseUnread()
        let file = "\(cache)/big.age", identityPath = "\(cache)/identity.txt"
        let identity = try prepare(cache: cache, file: file, identityPath: identityPath)
        print("age_file=\(file)")
        print("identity_file=\(identityPath)")
        print("plaintext_bytes=\(plaintextSize)")

        var seconds: [Double] = []
        for _ in 0..<rounds {
            var total = 0
            let start = Date()
            try AgeFileDecryptor.decryptFile(atPath: file, identities: [identity]) { total += $0.count }
            seconds.append(Date().timeIntervalSince(start))
            precondition(total == plaintextSize, "decrypted \(total) bytes")
        }
        let median = BenchProcess.median(seconds)
        print(String(format: "decrypt_seconds=%.3f", median))
        print(String(format: "decrypt_mb_s=%.1f", Double(plaintextSize) / median / 1e6))
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        print(String(format: "peak_rss_mib=%.1f", Double(usage.ru_maxrss) / 1024))
    }

    /// Encrypts 1 GiB of a byte pattern once; later runs reuse the file and identity.
    static func prepare(cache: String, file: String, identityPath: String) throws -> AgeX25519Identity {
        if FileIO.exists(file), FileIO.exists(identityPath) {
            let text = try String(contentsOfFile: identityPath, encoding: .utf8)
            return try AgeX25519Identity(encoded: text.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }.map(String.init) ?? "")
        }
        try FileIO.createDirectory(cache)
        let identity = try AgeX25519Identity.generate()
        let fileKey = try AgeFileKey.generate()
        let encryptor = try AgePayloadEncryptor(fileKey: fileKey)
        let piece = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        let start = Date()
        let tmp = FileIO.temporarySibling(of: file)
        try FileIO.writeNew(tmp) { out in
            try AgeHeader.make(fileKey: fileKey, recipients: [identity.recipient]).encoded.withUnsafeBytes { try out.write($0) }
            for _ in 0..<(plaintextSize / piece.count) {
                try piece.withUnsafeBytes { try encryptor.update($0, sink: out.write) }
            }
            try encryptor.finish(sink: out.write)
        }
        print(String(format: "encrypt_mb_s=%.1f", Double(plaintextSize) / Date().timeIntervalSince(start) / 1e6))
        try FileIO.commit(tmp, to: file)
        try FileIO.writeAtomically(Data("# public key: \(identity.recipient.encoded)\n\(identity.encoded)\n".utf8), to: identityPath, mode: 0o600)
        return identity
    }
}
