import CorpusFormat
import CorpusPublisher
import Foundation

/// `corpus-bench build [--passages N] [--files N] [--rounds N] [--work DIR] [--keep]`
///
/// Generates N passages of text (default 100,000) in `--files` source files (default 1,000: half
/// Markdown with one section per passage, half plain text with one long paragraph per passage),
/// then in the same run:
/// - the floor: the same passages bulk-loaded into an FTS5 table (same tokenizer) by the
///   `sqlite3` CLI, `.import` inside one transaction;
/// - the build: `CorpusBuilder.build` on the folder (ingest, split, pack with FTS5 + optimize +
///   VACUUM, embeddings and vectors, manifest, signed zip).
/// Each of `--rounds` rounds (default 5) runs the floor and then the build; the figures are the
/// medians of each, so one slow stretch on a shared machine moves neither much.
/// Prints `key=value` lines and the ratio build / floor (goal <= 1.5).
enum BuildBench {
    static func run(args: [String]) throws {
        var options = BenchArguments(args, subcommand: "build")
        let passages = options.int("--passages", default: 100_000)
        let files = options.int("--files", default: 1_000)
        let work = options.value("--work") ?? ".bench/build"
        let rounds = max(1, options.int("--rounds", default: 5))
        let keep = options.flag("--keep")

        FileIO.remove(work)
        try FileIO.createDirectory("\(work)/src")
        let generated = try generate(passages: passages, files: files, into: "\(work)/src", csv: "\(work)/floor.csv")
        print("passages=\(passages)")
        print("files=\(files)")
        print("text_mb=\(String(format: "%.1f", Double(generated) / 1e6))")

        // Floor: sqlite3 CLI, one transaction, the same three columns and tokenizer.
        let script = """
        CREATE VIRTUAL TABLE passages_fts USING fts5(title, section, text, tokenize='porter unicode61 remove_diacritics 2');
        BEGIN;
        .import --csv \(work)/floor.csv passages_fts
        COMMIT;

        """
        try Data(script.utf8).write(to: URL(fileURLWithPath: "\(work)/floor.sql"))
        let key = try SecretKey.generate()

        // Rounds alternate floor and build, so both see the same stretch of a shared machine;
        // the figures are the medians.
        var floors: [Double] = []
        var builds: [(total: Double, phases: [(String, Double)], bytes: Int64)] = []
        for round in 0..<rounds {
            FileIO.remove("\(work)/floor.sqlite")
            let floorStart = Date()
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite.arguments = ["\(work)/floor.sqlite"]
            sqlite.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: "\(work)/floor.sql"))
            try sqlite.run()
            sqlite.waitUntilExit()
            floors.append(Date().timeIntervalSince(floorStart))
            guard sqlite.terminationStatus == 0 else { throw BenchError("sqlite3 floor failed with status \(sqlite.terminationStatus)") }

            // The build, phase by phase through its progress callback.
            let output = "\(work)/bench-\(round).corpus.zip"
            let start = Date()
            var marks: [(String, Date)] = []
            // The floor is an FTS5 load, so the build timed against it is the one that indexes (`--index bundle`).
            var options = BuildOptions(source: "\(work)/src", id: "bench", version: CorpusVersion("1")!, title: "Bench")
            options.indexAtInstall = false
            let summary = try CorpusBuilder.build(options, key: key, output: output) { step in
                    switch step {
                    case .ingested: marks.append(("ingest_and_index", Date()))
                    case .split: marks.append(("split", Date()))
                    case .packed: marks.append(("embed_and_pack_finish", Date()))
                    case .bundled: marks.append(("bundle", Date()))
                    }
                }
            let total = Date().timeIntervalSince(start)
            guard summary.passages == passages else { throw BenchError("built \(summary.passages) passages, generated \(passages)") }
            var previous = start
            var phases: [(String, Double)] = []
            for (name, at) in marks where name != "split" {
                phases.append((name, at.timeIntervalSince(previous)))
                previous = at
            }
            builds.append((total, phases, summary.bytes))
            FileIO.remove(output)
        }
        func fmt(_ x: Double) -> String { String(format: "%.2f", x) }
        let floor = floors.sorted()[floors.count / 2]
        let median = builds.sorted { $0.total < $1.total }[builds.count / 2]
        print("rounds=\(rounds)")
        print("floor_runs_s=\(floors.map(fmt).joined(separator: ","))")
        print("build_runs_s=\(builds.map { fmt($0.total) }.joined(separator: ","))")
        print("floor_sqlite3_import_s=\(fmt(floor))")
        for (name, seconds) in median.phases { print("build_\(name)_s=\(fmt(seconds))") }
        print("build_total_s=\(fmt(median.total))")
        print("bundle_mb=\(String(format: "%.1f", Double(median.bytes) / 1e6))")
        print("build_vs_floor=\(fmt(median.total / floor)) (goal <= 1.50)")
        if !keep { FileIO.remove(work) }
    }

    /// Writes the source files and the floor's CSV of exactly the passages the build will make.
    /// Returns the bytes of passage text.
    static func generate(passages: Int, files: Int, into dir: String, csv: String) throws -> Int {
        var rng = BenchRandom(seed: 42)
        let vocabulary = makeVocabulary(&rng, count: 4_000)
        var csvText = ""
        var textBytes = 0
        let perFile = (passages + files - 1) / files
        var made = 0
        var fileIndex = 0
        while made < passages {
            let count = min(perFile, passages - made)
            let markdown = fileIndex % 2 == 0
            let title = "Generated document \(fileIndex)"
            var body = markdown ? "# \(title)\n\n" : "\(title)\n\n"
            for n in 0..<count {
                // Markdown: one short-ish paragraph per section. Text: paragraphs longer than half the
                // passage cap, so no two merge and each is exactly one passage.
                let text = sentence(&rng, vocabulary, minLength: markdown ? 300 : 560, maxLength: markdown ? 700 : 900)
                let section = markdown ? "Section \(n)" : ""
                if markdown { body += "## \(section)\n\n" }
                body += text + "\n\n"
                csvText += "\(quote(title)),\(quote(section)),\(quote(text))\n"
                textBytes += text.utf8.count
            }
            let name = String(format: "%03d/doc-%05d.%@", fileIndex / 100, fileIndex, markdown ? "md" : "txt")
            try FileIO.createDirectory(("\(dir)/\(name)" as NSString).deletingLastPathComponent)
            try Data(body.utf8).write(to: URL(fileURLWithPath: "\(dir)/\(name)"))
            made += count
            fileIndex += 1
        }
        try Data(csvText.utf8).write(to: URL(fileURLWithPath: csv))
        return textBytes
    }

    static func quote(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    static func makeVocabulary(_ rng: inout BenchRandom, count: Int) -> [String] {
        let onsets = ["b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w", "st", "tr", "ch", "sh", "gr"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ou", "ea"]
        let codas = ["", "n", "r", "s", "t", "l", "nd", "ck", "ng"]
        var words = Set<String>()
        while words.count < count {
            let syllables = 1 + Int(rng.next() % 3)
            var w = ""
            for _ in 0..<syllables {
                w += onsets[Int(rng.next() % UInt64(onsets.count))] + vowels[Int(rng.next() % UInt64(vowels.count))]
                    + codas[Int(rng.next() % UInt64(codas.count))]
            }
            words.insert(w)
        }
        return words.sorted()
    }

    /// Words drawn with a Zipf-like skew (frequent words much more common), in sentences.
    static func sentence(_ rng: inout BenchRandom, _ vocabulary: [String], minLength: Int, maxLength: Int) -> String {
        let target = minLength + Int(rng.next() % UInt64(maxLength - minLength))
        var out = ""
        var wordsInSentence = 0
        while out.utf8.count < target {
            let u = Double(rng.next() % 1_000_000) / 1_000_000
            let index = min(vocabulary.count - 1, Int(pow(Double(vocabulary.count), u)) - 1)
            var word = vocabulary[max(0, index)]
            if wordsInSentence == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
            out += (out.isEmpty ? "" : " ") + word
            wordsInSentence += 1
            if wordsInSentence > 6 && rng.next() % 8 == 0 {
                out += "."
                wordsInSentence = 0
            }
        }
        return out.hasSuffix(".") ? out : out + "."
    }
}

extension BuildBench {
    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}
