import CorpusFormat
import CorpusTestSupport
import Foundation

/// `corpus-bench install-encrypted [--work DIR] [--rounds N] [--bin DIR]`
///
/// Installing the 1 GiB bundle of `corpus-bench install` (same cache, `.bench/install`) as an
/// encrypted entitled corpus (`corpusd publish --key-store --gate-url`, the key from `corpusd serve
/// --key-store`, the payload from the same server) against installing it in the clear, the two
/// alternating, best of N, each in a fresh `--home`. Prints `RESULT` lines: the ratio encrypted /
/// clear (goal <= 1.15) and the encrypted install's peak RSS.
enum EncryptedInstallBench {
    static func run(_ args: [String]) throws {
        var options = BenchArguments(args)
        let work = options.folder("--work", default: ".bench/install")
        let rounds = options.int("--rounds", default: 3)
        let bin = options.value("--bin") ?? BenchProcess.productsDirectory
        try options.refuseUnread()
        let corpus = "\(bin)/corpus", corpusd = "\(bin)/corpusd"

        let clearTree = try InstallBench.prepareTree(work: work, corpusd: corpusd)
        let clear = try BenchServer(corpusd: corpusd, root: clearTree)
        defer { clear.stop() }

        // The same bundle, entitled, published encrypted into a tree of its own, served with its key store.
        let port = freeLoopbackPort()
        let sealedTree = "\(work)/sealed-public", keyStore = "\(work)/sealed-keys", key = "\(work)/keys/bench.key"
        if !FileIO.exists("\(work)/keys/entitlement.key") { try BenchProcess.check(corpusd, ["keygen", "--out", "\(work)/keys", "--name", "entitlement"]) }
        try FileIO.createDirectory("\(work)/sealed-catalog")
        let catalog = #"{"id":"bench","title":"Install benchmark","corpora":[{"id":"big","version":"1","title":"Big","bundle":"../big.corpus.zip","access":"entitled","tier":"pro"}]}"#
        try FileIO.writeAtomically(Data(catalog.utf8), to: "\(work)/sealed-catalog/catalog.json")
        FileIO.remove(sealedTree)
        FileIO.remove(keyStore)
        try BenchProcess.check(corpusd, ["publish", "\(work)/sealed-catalog", "--out", sealedTree, "--key", key, "--expires", "30d",
                                         "--key-store", keyStore, "--gate-url", "http://127.0.0.1:\(port)"])
        let gate = try BenchDaemon(corpusd, ["serve", sealedTree, "--listen", "127.0.0.1:\(port)", "--quiet",
                                             "--entitlement-pub", "\(work)/keys/entitlement.pub", "--key-store", keyStore],
                                   probe: ["-f", "http://127.0.0.1:\(port)/healthz"], name: "corpusd serve --key-store on port \(port)")
        defer { gate.stop() }
        let token = try BenchProcess.check(corpusd, ["token", "issue", "--key", "\(work)/keys/entitlement.key", "--sub", "bench", "--tier", "pro",
                                                     "--aud", "bench", "--expires", "2h"]).trimmingCharacters(in: .whitespacesAndNewlines)

        let home = "\(work)/home"
        var env = ProcessInfo.processInfo.environment
        env["CORPUS_TOKEN"] = token
        var clearTimes: [Double] = [], sealedTimes: [Double] = [], sealedRSS: [Int] = []
        func install(_ url: String, trust: String, environment: [String: String]?) throws -> BenchProcess.Outcome {
            FileIO.remove(home)
            try BenchProcess.check(corpus, ["--home", home, "--quiet", "remote", "add", "bench", url, "--trust", trust])
            BenchProcess.flushDisk()
            let r = try BenchProcess.run(corpus, ["--home", home, "--quiet", "install", "big"], measureRSS: true, environment: environment)
            guard r.status == 0, FileIO.fileSize("\(home)/corpora/bench/big/current/vectors.bin") != nil else {
                throw BuildBench.BenchError("corpus install from \(url) exited \(r.status): \(r.stderr)")
            }
            FileIO.remove(home)
            BenchProcess.flushDisk()
            return r
        }
        for round in 1...rounds {
            for which in round % 2 == 1 ? ["clear", "sealed"] : ["sealed", "clear"] {
                if which == "clear" {
                    clearTimes.append(try install(clear.url, trust: "\(clearTree)/keys/root.pub", environment: nil).seconds)
                } else {
                    let r = try install("http://127.0.0.1:\(port)", trust: "\(sealedTree)/keys/root.pub", environment: env)
                    sealedTimes.append(r.seconds)
                    sealedRSS.append(r.peakRSSKiB ?? 0)
                }
            }
            print(String(format: "round_%d clear_s=%.2f encrypted_s=%.2f", round, clearTimes.last!, sealedTimes.last!))
        }
        let best = sealedTimes.min()!, peer = clearTimes.min()!
        print(String(format: "encrypted_vs_clear=%.2f (goal <= 1.15)", best / peer))
        BenchProcess.result("install 1 GiB encrypted (key from the gate, decrypt) vs in the clear (best of \(rounds))", best, "s",
                            peer: peer, ratio: best / peer, goal: "<=1.15x")
        BenchProcess.result("encrypted install peak RSS", Double(sealedRSS.max()!) / 1024, "MiB", goal: "<=64")
    }
}
