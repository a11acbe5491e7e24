import CorpusEngine
import Foundation

/// `corpus-bench encoder [--model DIR] [--id ID] [--label NAME] [--query-prompt P] [--sgemm-gflops G] [--seconds S] [--batch N]`
/// (`corpus-bench minilm` is the same with all-MiniLM-L6-v2's defaults)
///
/// Measures a sentence encoder: query latency (p50, p90) for a 12-word query (with the model's
/// query prompt, or `P`), passage throughput at 128 tokens in batches, and the encoder's achieved
/// GFLOP/s as a fraction of the machine's sgemm rate `G`, which scripts/bench-encoders.sh
/// measures with NumPy in the same run and passes in. Prints `key: value` lines, then one JSON
/// line with every figure.
enum EncoderBench {
    static let query = "how do I rotate the signing key of a catalog"
    static let passageTokens = 128

    static func run(args: [String]) throws { try run(args: args, subcommand: "encoder") }
    static func runMiniLM(args: [String]) throws { try run(args: args, subcommand: "minilm") }

    static func run(args: [String], subcommand: String) throws {
        var options = BenchArguments(args, subcommand: subcommand)
        let model = options.value("--model") ?? "models/all-MiniLM-L6-v2"
        let id = options.value("--id") ?? MiniLMEmbedder.identifier
        let label = options.value("--label") ?? subcommand
        let peer = options.value("--sgemm-gflops").flatMap(Double.init)
        let seconds = options.value("--seconds").flatMap(Double.init) ?? 4
        let batch = options.int("--batch", default: 32)

        let url = URL(fileURLWithPath: model)
        let configuration = try BERTConfiguration(json: Data(contentsOf: url.appendingPathComponent("config.json")))
        var settings = try SentenceTransformersSettings.read(folder: url, configuration: configuration)
        if let prompt = options.value("--query-prompt") { settings.queryPrompt = prompt }
        let embedder = try BERTEmbedder(modelDirectory: url, id: id, settings: settings)
        let flops = { (counts: [Int]) in BERTEmbedder.encoderFLOPs(tokenCounts: counts, configuration: embedder.configuration) }
        var figures: [String: Double] = [:]

        // Query latency: one text, one forward pass, as a search does (with the query prompt).
        let queryTokens = embedder.tokenizeQuery(query).count
        figures["query_tokens"] = Double(queryTokens)
        for _ in 0..<20 { _ = try embedder.embedQueries([query]) }
        var latencies: [Double] = []
        let queryDeadline = now() + seconds / 2, queryCPUStart = cpuSeconds()
        while latencies.count < 50 || (now() < queryDeadline && latencies.count < 2000) {
            let t = now()
            _ = try embedder.embedQueries([query])
            latencies.append(now() - t)
        }
        figures["query_cpu_ms_mean"] = (cpuSeconds() - queryCPUStart) / Double(latencies.count) * 1000
        latencies.sort()
        figures["query_p50_ms"] = latencies[latencies.count / 2] * 1000
        figures["query_p90_ms"] = latencies[latencies.count * 9 / 10] * 1000
        figures["query_gflops"] = flops([queryTokens]) / latencies[latencies.count / 2] / 1e9

        // Passage throughput: texts of exactly 128 tokens, embedded `batch` at a time.
        let passages = (0..<batch).map { passage($0, tokenizer: embedder.tokenizer) }
        var tokenCounts = passages.map { embedder.tokenize($0).count }
        precondition(tokenCounts.allSatisfy { $0 == passageTokens })
        _ = try embedder.embed(passages)
        var embedded = 0
        let start = now(), cpuStart = cpuSeconds()
        repeat {
            _ = try embedder.embed(passages)
            embedded += passages.count
        } while now() - start < seconds
        let elapsed = now() - start
        // CPU time shows the cores' efficiency even when other processes share the machine.
        figures["passages_per_cpu_second"] = Double(embedded) / (cpuSeconds() - cpuStart)
        tokenCounts = Array(repeating: passageTokens, count: embedded)
        let gflops = flops(tokenCounts) / elapsed / 1e9
        figures["passages_per_second"] = Double(embedded) / elapsed
        figures["encoder_gflops"] = gflops
        if let peer {
            figures["sgemm_peer_gflops"] = peer
            figures["encoder_fraction_of_sgemm"] = gflops / peer
        }

        let order = ["query_tokens", "query_p50_ms", "query_p90_ms", "query_cpu_ms_mean", "query_gflops", "passages_per_second", "passages_per_cpu_second", "encoder_gflops",
                     "sgemm_peer_gflops", "encoder_fraction_of_sgemm"]
        print("\(label): \(embedder.id) (\(embedder.dimension) wide, \(embedder.configuration.layers) layers), query of \(queryTokens) tokens, passages of \(passageTokens) tokens in batches of \(batch)")
        for key in order {
            if let v = figures[key] { print("  \(key): \(String(format: "%.2f", v))") }
        }
        let json = order.compactMap { key in figures[key].map { "\"\(key)\": \(String(format: "%.3f", $0))" } }
        print("{\"bench\": \"\(label)\", \(json.joined(separator: ", "))}")
    }

    /// A distinct, ordinary English passage for each index that tokenizes to exactly
    /// `passageTokens` (`[CLS]` and `[SEP]` included): words are added while they fit, then
    /// the one-token word "the" fills what is left.
    static func passage(_ index: Int, tokenizer: WordPieceTokenizer) -> String {
        let sentences = [
            "The catalog lists every corpus a publisher offers, with its version and size.",
            "Readers do not block writers, and writers do not block readers in this database.",
            "A signed manifest records the digest of each member of the bundle.",
            "Mirrors are untrusted: every byte is checked against the publisher's signature.",
            "Search combines lexical ranking with vector similarity using reciprocal rank fusion.",
            "An install is staged on the same volume, verified, and then swapped in with a rename.",
        ]
        let pool = (0..<(2 * sentences.count)).map { sentences[($0 + index) % sentences.count] }
            .joined(separator: " ").split(separator: " ")
        func count(_ words: [String]) -> Int { tokenizer.encode(words.joined(separator: " "), maxTokens: 100_000).count }
        var words = ["Passage", "\(index)."]
        for word in pool.map(String.init) where count(words + [word]) <= passageTokens {
            words.append(word)
        }
        while count(words) < passageTokens { words.append("the") }
        return words.joined(separator: " ")
    }

    /// User plus system CPU time of the whole process, all threads.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
