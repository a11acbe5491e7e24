import Foundation
import CorpusFormat
import CorpusPublisher
import CorpusTestSupport

/// `corpus-bench catalog-tree --out DIR --count N [--flat] [--change K] [--key FILE]`: writes (or
/// advances by one version) a real signed tree of N one-book corpora for `bench-catalog.sh`,
/// without building N bundles. Every file a client reads is what `corpusd publish` writes: a
/// single-key root, the flat catalog, with parts unless `--flat` its trie of parts and top
/// document, the timestamp, the pointer. Only `book-0` and `book-1` get real signed bundles (the
/// ones the bench installs); the other entries name bundles no client of the bench fetches.
///
/// `--change K` (on an existing tree) publishes the next version with K entries changed, book-0
/// (installed) among them, and prints the seconds the catalog write took as
/// `publish_seconds <s>` (flat catalog, parts, top document, timestamp, pointer, and the garbage
/// collection `corpusd publish` runs after them: bundles no unexpired catalog names, parts no
/// retained top names), then how many parts it wrote and removed.
enum CatalogScaleTree {
    static func run(_ args: [String]) async throws {
        var a = BenchArguments(args)
        let out = a.folder("--out", default: ".bench/catalog-tree")
        let count = a.int("--count", default: 1000)
        let change = a.int("--change", default: 0)
        let flat = a.flag("--flat")
        try a.refuseUnread()
        let keyPath = "\(out)/../\(URL(fileURLWithPath: out).lastPathComponent).key"
        // The entries changed since version 1, beside the key (not in the tree: no client sees it).
        let changedPath = "\(out)/../\(URL(fileURLWithPath: out).lastPathComponent).changed"
        let key: SecretKey
        var version = 1
        var entries: [CatalogEntry]
        // The previous version's entries, as `corpusd publish` holds them from its history check
        // (made here before the timer, as there before the catalog is written).
        var previous: CatalogPreviousEntries?
        if change == 0 {
            key = try SecretKey.generate()
            try FileIO.createDirectory(out)
            try FileIO.writeAtomically(Data(key.fileText.utf8), to: keyPath)
            try writeRoot(key: key, tree: out)
            entries = try (0..<count).map { try entry($0, version: "1", tree: out, key: key) }
            try FileIO.writeAtomically(Data(), to: changedPath)
        } else {
            key = try SecretKey(contentsOf: keyPath)
            let pointer = try JSONDecoder().decode(CatalogPointer.self, from: Data(contentsOf: URL(fileURLWithPath: "\(out)/\(TreeLayout.pointer)")))
            version = pointer.version + 1
            entries = try previousEntries(tree: out, pointer: pointer, count: count, changedPath: changedPath)
            if let root = try? Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(TreeLayout.topPath(version: pointer.version))"))).parts?.root {
                previous = CatalogPreviousEntries(version: pointer.version, root: root, entries: entries)
            }
            // book-0 (installed) and K-1 others spread over the catalog.
            var changed = Set(try changedNumbers(changedPath))
            for k in 0..<change {
                let n = k == 0 ? 0 : (k * 7919) % count
                entries[n] = try entry(n, version: String(version), tree: out, key: key)
                changed.insert(n)
            }
            try FileIO.writeAtomically(Data(changed.sorted().map(String.init).joined(separator: "\n").utf8), to: changedPath)
        }
        let started = Date()
        let now = Date()
        let catalog = Catalog(id: "scale", title: "Catalog of \(count) books", version: version, issued: now,
                              expires: now.addingTimeInterval(30 * 86400), rootVersion: 1, corpora: entries)
        // In `corpusd publish`'s order: the parts and top document, then the flat catalog unless it
        // is larger than any client reads (`--flat`, today's layout, always writes it).
        var partsWritten = 0, partsReused = 0, compared = false
        var written: CatalogPartWriter.Written?
        var writeFlat = true
        try FileIO.createDirectory("\(out)/catalogs")
        if !flat {
            let w = try CatalogPartWriter.write(catalog, key: key, tree: out, previous: previous)
            (partsWritten, partsReused, writeFlat) = (w.parts.count, w.reused, w.flatCatalogFits)
            compared = w.comparedWithPrevious
            written = w
        }
        let path = writeFlat ? TreeLayout.catalogPath(version: version) : TreeLayout.topPath(version: version)
        var flatBytes: Int?
        if writeFlat {
            let bytes = try catalog.canonicalBytes()
            try FileIO.writeAtomically(bytes, to: "\(out)/\(path)")
            try FileIO.writeAtomically(Data(try key.sign(bytes, trustedComment: catalog.trustedComment).fileText.utf8), to: "\(out)/\(path).minisig")
            flatBytes = bytes.count
        }
        let named = try SHA256.hash(fileAt: "\(out)/\(path)")
        let stamp = TimestampDocument(version: version, issued: now, expires: now.addingTimeInterval(86400),
                                      catalog: .init(id: catalog.id, version: version, path: path, digest: SHA256Digest(bytes: named.digest), size: named.size),
                                      top: try CatalogPartWriter.topRef(version: version, tree: out))
        let stampBytes = try CanonicalJSON.encode(stamp)
        try FileIO.writeAtomically(Data(try key.sign(stampBytes, trustedComment: stamp.trustedComment).fileText.utf8), to: "\(out)/\(TreeLayout.timestamp).minisig")
        try FileIO.writeAtomically(stampBytes, to: "\(out)/\(TreeLayout.timestamp)")
        try FileIO.writeAtomically(try CanonicalJSON.encode(CatalogPointer(id: catalog.id, version: version, path: path)), to: "\(out)/\(TreeLayout.pointer)")
        // What `corpusd publish` does after the pointer: its garbage collection, timed with the rest.
        var partsRemoved: [String] = []
        if let written {
            partsRemoved = CatalogPartWriter.removeUnreferenced(after: written, keep: catalog, tree: out, now: now).parts
        } else {
            let published = PublishedTree(root: out)
            _ = published.removeUnreferencedFiles(keep: catalog, now: now)
            partsRemoved = published.removeUnreferencedParts(current: version, now: now)
        }
        print("publish_seconds \(String(format: "%.3f", Date().timeIntervalSince(started)))")
        print("parts_written \(partsWritten)")
        print("parts_reused \(partsReused)")
        print("parts_removed \(partsRemoved.count)")
        print("compared_with_previous \(compared)")
        print("updated \(written?.updated ?? false)")
        if !flat, change == 0 { try printPartSizes(tree: out, version: version) }
        print("flat_catalog_bytes \(flatBytes.map(String.init) ?? "none")")
        if let top = try CatalogPartWriter.topRef(version: version, tree: out) { print("top_bytes \(top.size)") }
    }

    static func changedNumbers(_ path: String) throws -> [Int] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
    }

    /// The entries of the version the pointer names: generated again (every entry is a function of
    /// its number and version), those changed since version 1 read from the tree, from the flat
    /// catalog when the version has one, else through the trie (only the paths to them).
    static func previousEntries(tree: String, pointer: CatalogPointer, count: Int, changedPath: String) throws -> [CatalogEntry] {
        let read = { (rel: String) in try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(rel)")) }
        if pointer.path == TreeLayout.catalogPath(version: pointer.version) { return try Catalog.decode(try read(pointer.path)).corpora }
        let top = try Catalog.decode(try read(TreeLayout.topPath(version: pointer.version)))
        guard let parts = top.parts, parts.count == count else { throw BuildBench.BenchError("the tree's top document names no parts of \(count) entries") }
        let changed = Set(try changedNumbers(changedPath)).union([0, 1]).map { "book-\($0)" }
        let held = try CatalogPartWalk.entries(of: parts, ids: Set(changed)) { try read($0.path) }.entries
        var entries = try (0..<count).map { n in n <= 1 ? nil : try entry(n, version: "1", tree: tree, key: nil) }
        for e in held { entries[Int(e.id.dropFirst(5))!] = e }
        return try entries.enumerated().map { n, e in
            guard let e else { throw BuildBench.BenchError("book-\(n) is not in the tree") }
            return e
        }
    }

    /// `part_sizes <nodes> <node bytes avg> <leaves> <leaf bytes avg> <depth>`: the measured sizes
    /// the 10^6 point in docs/format.md is worked out from.
    static func printPartSizes(tree: String, version: Int) throws {
        let top = try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.topPath(version: version))")))
        guard let parts = top.parts else { return }
        let walk = try CatalogPartWalk.entries(of: parts, ids: nil) { try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\($0.path)")) }
        var nodes: [Int64] = [], leaves: [Int64] = []
        for (ref, stored) in walk.read {
            if try CatalogPart.decode(stored: stored, ref: ref).kind == .node { nodes.append(ref.size) } else { leaves.append(ref.size) }
        }
        func avg(_ a: [Int64]) -> Int64 { a.isEmpty ? 0 : a.reduce(0, +) / Int64(a.count) }
        print("part_sizes \(nodes.count) \(avg(nodes)) \(leaves.count) \(avg(leaves)) \(parts.depth)")
    }

    static func writeRoot(key: SecretKey, tree: String) throws {
        let doc = RootKeyDocument(version: 1, key: key.publicKey, created: Date())
        let bytes = try CanonicalJSON.encode(doc)
        try FileIO.createDirectory("\(tree)/keys")
        try FileIO.writeAtomically(bytes, to: "\(tree)/\(TreeLayout.rootKeyPath(version: 1))")
        try FileIO.writeAtomically(Data(try key.sign(bytes, trustedComment: "root:1 key:\(key.publicKey.keyID)").fileText.utf8),
                                   to: "\(tree)/\(TreeLayout.rootKeyPath(version: 1)).minisig")
        try FileIO.writeAtomically(Data(key.publicKey.fileText.utf8), to: "\(tree)/keys/root.pub")
    }

    /// Entry `n`: a real signed bundle for book-0 and book-1, a named-only bundle for the rest;
    /// fields about as long as the reader app's one-book corpora (about 600 bytes of JSON).
    static func entry(_ n: Int, version: String, tree: String, key: SecretKey?) throws -> CatalogEntry {
        let id = "book-\(n)"
        let title = "Book number \(n) at version \(version): a public-domain title of middling length"
        let description = "One book of a generated catalog, number \(n), with a description about as long as a blurb on the back cover."
        if n <= 1, let key {
            let pack = PackFixture(id: id, version: version, texts: ["book.md": ["The text of \(id), version \(version): tides and harbors."]])
            let work = NSTemporaryDirectory() + "catalog-tree-\(id)-\(version)-\(UInt32.random(in: 0...UInt32.max))"
            try pack.write(to: work)
            defer { try? FileManager.default.removeItem(atPath: work) }
            let unsigned = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: "\(work)/\(BundleLayout.manifest)")))
            let zip = "\(work).corpus.zip"
            defer { try? FileManager.default.removeItem(atPath: zip) }
            let m = try BundleWriter.write(manifest: unsigned, packPath: "\(work)/\(BundleLayout.pack)", vectorsPath: "\(work)/\(BundleLayout.vectors)", key: key, to: zip)
            let ref = try BundleRef(hashing: zip, path: { TreeLayout.bundlePath(sha256: $0.hex) })
            try FileIO.createDirectory("\(tree)/bundles")
            try? FileManager.default.removeItem(atPath: "\(tree)/\(ref.path)")
            try FileManager.default.copyItem(atPath: zip, toPath: "\(tree)/\(ref.path)")
            return CatalogEntry(id: id, version: m.version, title: title, description: description, language: "en", license: "public-domain",
                                access: .free, tier: nil, bundled: false, bundle: ref, documents: m.documents, passages: m.passages,
                                embedder: m.embedder, content: m.content)
        }
        let digest = SHA256.digest(Data("\(id)@\(version)".utf8))
        return CatalogEntry(id: id, version: CorpusVersion(version)!, title: title, description: description, language: "en", license: "public-domain",
                            access: .free, tier: nil, bundled: false, bundle: BundleRef(path: TreeLayout.bundlePath(sha256: digest.hex), digest: digest, size: 3_114),
                            documents: 1, passages: 40 + n % 17, embedder: EmbedderInfo(id: "hash-uni-bi-384-v1", dimension: 384, encoding: "int8"),
                            content: SHA256.digest(Data("content \(id)@\(version)".utf8)))
    }
}
