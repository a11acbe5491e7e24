import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusPublisher

/// The published `index.html` rendered by a real browser (headless Chromium, which
/// scripts/bootstrap.sh installs) from a file on disk, so the filter is shown to need no server.
@Suite struct DownloadPageBrowserTests {
    static let hostileTitle = #"<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>"#

    /// A published tree of two corpora, the free one titled with markup a browser would run if unescaped.
    final class Fixture {
        let dir = TempDirectory("download-page")
        let catalog: Catalog

        init() throws {
            let key = try SecretKey.generate()
            let title = String(decoding: try JSONEncoder().encode(DownloadPageBrowserTests.hostileTitle), as: UTF8.self)
            try dir.write("catalog/catalog.json", """
            {"id": "page-catalog", "title": "Page & co", "corpora": [
              {"id": "tides", "version": "1.2", "title": \(title), "description": "Tide notes", "license": "CC0-1.0",
               "source": "tides", "access": "free"},
              {"id": "orbits", "version": "2", "title": "Orbits", "description": "Kepler", "source": "orbits",
               "access": "entitled", "tier": "pro"}
            ]}
            """)
            try dir.write("catalog/tides/springs.md", "# Springs\n\nSpring tides follow the new and full moon.")
            try dir.write("catalog/orbits/kepler.md", "# Kepler\n\nPlanets sweep equal areas in equal times.")
            catalog = try TreePublisher.publish(catalogDirectory: dir.url("catalog"), output: dir.url("public"), key: key,
                                                expiresIn: 86400, now: Date()).catalog
        }

        var page: String { dir.url("public/index.html") }
        func entry(_ id: String) -> CatalogEntry { catalog.corpora.first { $0.id == id }! }

        /// Chromium's DOM after the page's script ran, for `index.html` plus `suffix` (a fragment or query).
        func dumpDOM(_ suffix: String = "") throws -> String {
            let r = try chromium(["--dump-dom", "file://\(page)\(suffix)"])
            #expect(r.status == 0, "chromium --dump-dom: \(r.stderr)")
            return r.stdout
        }

        func chromium(_ args: [String]) throws -> ProcessResult {
            // Its own profile folder and HOME: the test must not touch the user's browser profile.
            try ProcessRunner.run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                        "--user-data-dir=\(dir.url("profile"))"] + args,
                                  environment: ["HOME": dir.path, "PATH": "/usr/bin:/bin"], timeout: 90)
        }
    }

    /// The `<tr class="corpus"…>…</tr>` rows of a dumped DOM, keyed by the corpus id in each row.
    static func rows(_ dom: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in dom.components(separatedBy: "<tr class=\"corpus\"").dropFirst() {
            let row = part.components(separatedBy: "</tr>")[0]
            for id in ["tides", "orbits"] where row.contains("<small>\(id) ") { out[id] = row }
        }
        return out
    }

    @Test func linksNameFilesAndShowHashesAndHostileTextStaysText() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                "chromium is missing: run scripts/bootstrap.sh (it installs Debian's chromium)")
        let f = try Fixture()
        let dom = try f.dumpDOM()
        let rows = Self.rows(dom)
        #expect(rows.count == 2, "rows: \(rows.keys.sorted())")
        for id in ["tides", "orbits"] {
            let e = f.entry(id)
            let row = rows[id] ?? ""
            #expect(row.contains(#"href="\#(e.bundle.path)" download="\#(id)-\#(e.version.description).corpus.zip""#), "\(row)")
            #expect(row.contains(#"<code class="sha256">\#(e.bundle.digest.hex)</code>"#), "\(row)")
            #expect(!row.contains(" hidden"), "\(row)")
        }
        #expect(dom.contains("2 of 2 shown"))
        // The hostile title is shown as text: no element made of it, its script never ran.
        #expect(rows["tides"]?.contains("&lt;img src=x onerror=\"document.title='pwned'\"&gt;&lt;script&gt;") == true, "\(rows["tides"] ?? "")")
        #expect(!dom.contains("<img"))
        #expect(!dom.contains("pwned</title>"))
        #expect(dom.contains("<title>Page &amp; co</title>"))
        // The how-to-verify section names the first bundle by its friendly name and hash.
        let tides = f.entry("tides")
        #expect(dom.contains(#"echo "\#(tides.bundle.digest.hex)  tides-1.2.corpus.zip" | sha256sum -c"#))
        #expect(dom.contains("minisign -Vm 1.json -p root.pub") && dom.contains(#"href="catalogs/1.json.minisig""#))
        // And that command passes on the bundle saved under the name the link gives it.
        let saved = f.dir.url("download")
        try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.dir.url("public/\(tides.bundle.path)"), toPath: "\(saved)/tides-1.2.corpus.zip")
        let check = try ProcessRunner.run("/bin/sh", ["-c", #"echo "\#(tides.bundle.digest.hex)  tides-1.2.corpus.zip" | sha256sum -c"#],
                                          currentDirectory: saved)
        #expect(check.status == 0 && check.stdout.contains("tides-1.2.corpus.zip: OK"), "\(check.stdout) \(check.stderr)")
    }

    @Test(arguments: ["#q=kepler", "?q=ENTITLED%20pro"])
    func theFilterFromTheAddressHidesRowsThatDoNotMatch(_ suffix: String) throws {
        let f = try Fixture()
        let dom = try f.dumpDOM(suffix)
        let rows = Self.rows(dom)
        #expect(rows["orbits"].map { !$0.contains(" hidden") } == true, "\(rows["orbits"] ?? "")")
        #expect(rows["tides"].map { $0.hasPrefix(#" hidden="">"#) } == true, "\(rows["tides"] ?? "")")
        #expect(dom.contains("1 of 2 shown"))
    }

    @Test func aFilterMatchingNothingHidesEveryRow() throws {
        let f = try Fixture()
        let dom = try f.dumpDOM("#q=no-such-corpus")
        #expect(Self.rows(dom).values.allSatisfy { $0.hasPrefix(#" hidden="">"#) })
        #expect(dom.contains("0 of 2 shown"))
    }

    @Test func aPhoneSizedScreenshotIsSaved() throws {
        let f = try Fixture()
        let png = f.dir.url("phone.png")
        let r = try f.chromium(["--window-size=390,844", "--hide-scrollbars", "--screenshot=\(png)", "file://\(f.page)"])
        #expect(r.status == 0, "chromium --screenshot: \(r.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        if let keep = ProcessInfo.processInfo.environment["CORPUS_KEEP_SCREENSHOT"] { try? data.write(to: URL(fileURLWithPath: keep)) }
        #expect(data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "not a PNG")
        // A blank 390x844 PNG compresses to a few hundred bytes; text and table lines make it kilobytes.
        #expect(data.count > 8_000, "screenshot is \(data.count) bytes")
        let html = try String(contentsOfFile: f.page, encoding: .utf8)
        #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
        #expect(html.contains("@media (max-width:40em)"))
    }
}
