import Foundation
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus-bench read --home HOME --corpus ID --document PATH --url URL [--runs 15]`: reading one
/// document (`corpus read`'s library calls), its first page and the whole of it, locally (the
/// engine in this process over HOME, warm: the corpus open and its reading order made, as an app
/// or the server has them after the first read) and remotely (`GET URL/v1/read`, a `corpusd serve
/// --search HOME` process), beside the floor: the `sqlite3` command line selecting the document's
/// passages in order from the installed pack (a whole process, as it would be run).
/// Prints `read_<what>_ms=MEDIAN` lines and the sizes read.
enum ReadBench {
    static func run(args: [String]) async throws {
        var a = BenchArguments(args, subcommand: "read")
        let home = a.folder("--home", default: ".bench/read/home")
        guard let corpus = a.value("--corpus"), let document = a.value("--document"), let url = a.value("--url") else {
            throw BuildBench.BenchError("read needs --corpus ID --document PATH --url URL")
        }
        let runs = a.int("--runs", default: 15)
        try a.refuseUnread()

        let local = LocalBrowser(library: CorpusLibrary(home: home))
        let config = try CorpusClient(home: HomeLayout(root: home)).config()
        guard var server = config.remotes.first else { throw BuildBench.BenchError("\(home) has no remote") }
        server.url = url
        let remote = RemoteBrowser(remote: server, token: nil)
        let pack = try local.open(corpus).folder + "/" + BundleLayout.pack

        // Warm both sides once (the corpus opened, its reading order made, the pack's pages cached).
        let whole = try await local.readToEnd(corpus: corpus, document: document)
        _ = try await remote.readToEnd(corpus: corpus, document: document)
        let characters = whole.sections.reduce(0) { $0 + $1.text.unicodeScalars.count }
        let passages = whole.sections.reduce(0) { $0 + $1.passages.count }
        var pages = 1
        var page = try await local.read(corpus: corpus, document: document, at: nil, from: nil)
        while let next = page.next { page = try await local.read(corpus: corpus, document: document, at: nil, from: next); pages += 1 }
        print("read_document_characters=\(characters)")
        print("read_document_passages=\(passages)")
        print("read_document_pages=\(pages)")

        let sql = "SELECT p.text FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.path = '\(document.replacingOccurrences(of: "'", with: "''"))' ORDER BY p.ordinal"
        let measures: [(String, () async throws -> Void)] = [
            ("local_first_page", { _ = try await local.read(corpus: corpus, document: document, at: nil, from: nil) }),
            ("local_whole", { _ = try await local.readToEnd(corpus: corpus, document: document) }),
            ("remote_first_page", { _ = try await remote.read(corpus: corpus, document: document, at: nil, from: nil) }),
            ("remote_whole", { _ = try await remote.readToEnd(corpus: corpus, document: document) }),
            ("sqlite3_passages_in_order", { try sqlite3(pack, sql) }),
        ]
        for (name, work) in measures {
            var times: [Double] = []
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                try await work()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            times.sort()
            print(String(format: "read_%@_ms=%.2f", name, times[times.count / 2]))
        }
    }

    /// `sqlite3 -readonly PACK SQL`, its output read to the end and dropped, as a script would run it.
    static func sqlite3(_ pack: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = ["-readonly", pack, sql]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        _ = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BuildBench.BenchError("sqlite3 exited \(p.terminationStatus)") }
    }
}
