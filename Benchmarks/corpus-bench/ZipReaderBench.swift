import CorpusFormat
import Foundation

/// The zlib zip reader against libzip on the bundle-stream benchmark's bundle (1 GiB stored
/// vectors.bin, `BundleStreamBench.prepare`): `verifyAll` (read, CRC-32, SHA-256) and `extract`
/// (the same, written and fsynced) with each reader, the two alternated over `--rounds` rounds
/// (default 5), the order swapped every round. Prints each round and the medians as `key=value`
/// lines for scripts/bench-bundle.sh.
///
/// Usage: `corpus-bench zip-readers [--cache DIR] [--extract-to DIR] [--rounds N]`
enum ZipReaderBench {
    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let cache = options.value("--cache") ?? ".bench/bundle-stream"
        let target = options.value("--extract-to") ?? "\(cache)/extracted-readers"
        let rounds = Int(options.value("--rounds") ?? "5") ?? 5
        try options.refuseUnread()
        let bundle = "\(cache)/big.corpus.zip"
        let key = try BundleStreamBench.prepare(cache: cache, bundle: bundle)
        let size = Double(BundleStreamBench.header.fileSize)

        var verify: [ZipImplementation: [Double]] = [:], extract: [ZipImplementation: [Double]] = [:]
        for round in 0..<rounds {
            let order: [ZipImplementation] = round % 2 == 0 ? [.libzip, .zlib] : [.zlib, .libzip]
            for implementation in order {
                var start = Date()
                try BundleReader(path: bundle, implementation: implementation).verifyAll(trustedKeys: [key.publicKey])
                let v = size / Date().timeIntervalSince(start) / 1e6
                FileIO.remove(target)
                start = Date()
                try BundleReader(path: bundle, implementation: implementation).extract(to: target, trustedKeys: [key.publicKey])
                let x = size / Date().timeIntervalSince(start) / 1e6
                FileIO.remove(target)
                verify[implementation, default: []].append(v)
                extract[implementation, default: []].append(x)
                print("round=\(round + 1) reader=\(implementation.rawValue) " + String(format: "verify_mb_s=%.1f extract_mb_s=%.1f", v, x))
            }
        }
        for implementation in [ZipImplementation.libzip, .zlib] {
            print(String(format: "\(implementation.rawValue)_verify_mb_s=%.1f", median(verify[implementation]!)))
            print(String(format: "\(implementation.rawValue)_extract_mb_s=%.1f", median(extract[implementation]!)))
        }
        print("rounds=\(rounds)")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
