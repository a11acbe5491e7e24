import Foundation
import CorpusFormat

/// A real published tree for mirror tests, written by the real `corpusd keygen`, `corpusd publish`
/// and `corpusd token issue`: a small catalog with free corpora (`tides`, `bread`), an entitled one
/// (`atlas`, tier `gold`) and, when asked, a large generated one (`almanac`).
public final class MirrorTreeFixture: @unchecked Sendable {
    public let dir: TempDirectory
    public let catalogID = "mirror-test"
    /// The published tree (`corpusd publish --out`).
    public var tree: String { dir.url("public") }
    public var catalogFolder: String { dir.url("catalog") }
    public var rootKey: String { dir.url("keys/root.key") }
    public var rootPub: String { dir.url("keys/root.pub") }
    /// Signs entitlement tokens; `corpusd serve --entitlement-pub` pins its public half.
    public var entitlementPub: String { dir.url("keys/tokens.pub") }
    /// A key pair that is not the tree's.
    public var strangerPub: String { dir.url("keys/stranger.pub") }

    /// The MiniLM weights `scripts/fetch-model.sh` puts in `models/` (absent when it could not).
    public static let modelFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models/all-MiniLM-L6-v2").path
    public static var modelAvailable: Bool { FileManager.default.fileExists(atPath: "\(modelFolder)/model.safetensors") }

    /// - Parameter almanacBytes: size of the generated text of the extra `almanac` corpus (0: none).
    /// - Parameter withModel: the `tides` corpus names all-MiniLM-L6-v2, so the tree holds its artifact.
    public init(almanacBytes: Int = 0, withModel: Bool = false) throws {
        dir = TempDirectory("mirror-tree")
        for name in ["root", "tokens", "stranger"] { try Self.corpusd(["keygen", "--out", dir.url("keys"), "--name", name]) }
        try dir.write("catalog/tides/tides.md", "# Tides\n\n## Springs and neaps\n\nSpring tides follow the new and full moon; neap tides the quarter moons.\n")
        try dir.write("catalog/tides/charts.md", "# Charts\n\n## Soundings\n\nChart datum is the lowest astronomical tide.\n")
        try dir.write("catalog/bread/starter.md", "# Starter\n\nFeed the sourdough starter flour and water twice a day until it doubles.\n")
        try dir.write("catalog/atlas/maps.md", "# Maps\n\nA gazetteer of mountain passes and their cartography.\n")
        if almanacBytes > 0 { try Self.writeGeneratedText(into: dir.url("catalog/almanac"), bytes: almanacBytes) }
        ids = ["tides", "bread", "atlas"] + (almanacBytes > 0 ? ["almanac"] : [])
        self.withModel = withModel
        if withModel {
            try FileManager.default.createDirectory(atPath: dir.url("models"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: dir.url("models/minilm"), withDestinationPath: Self.modelFolder)
        }
        try writeCatalogSource()
    }

    private var ids: [String] = []
    private let withModel: Bool
    private var versions: [String: String] = [:]

    private func writeCatalogSource() throws {
        let corpora = ids.map { id -> String in
            let access = id == "atlas" ? #""access":"entitled","tier":"gold""# : #""access":"free""#
            let model = withModel && id == "tides" ? #","embedder":"all-MiniLM-L6-v2""# : ""
            return #"{"id":"\#(id)","version":"\#(versions[id] ?? "1")","title":"\#(id.capitalized)","source":"\#(id)",\#(access)\#(model)}"#
        }
        let embedders = withModel ? #""embedders":[{"id":"all-MiniLM-L6-v2","source":"../models/minilm"}],"# : ""
        try dir.write("catalog/catalog.json",
                      #"{"id":"\#(catalogID)","title":"Mirror test",\#(embedders)"corpora":[\#(corpora.joined(separator: ","))]}"#)
    }

    /// Runs `corpusd publish` (a new catalog version each time); throws when it fails.
    public func publish(expires: String = "30d") throws {
        try Self.corpusd(["publish", catalogFolder, "--out", tree, "--key", rootKey, "--expires", expires])
    }

    /// Runs `corpusd timestamp` (a new `timestamp.json` for the pointer's catalog), as a
    /// publisher does after changing the tree by hand or from cron.
    public func timestamp(expires: String = "1d") throws {
        try Self.corpusd(["timestamp", tree, "--key", rootKey, "--expires", expires])
    }

    /// Turns the current version into one without a flat catalog, as a publish over
    /// `Catalog.maxFlatBytes` writes it (docs/format.md "Catalog parts"): the flat catalog and its
    /// signature go, the pointer names the top document, and `corpusd timestamp` vouches for it.
    /// The tree stays small; no client or mirror can tell how the version came to have no flat file.
    public func dropFlatCatalog(timestampExpires: String = "1d") throws {
        let pointer = try JSONDecoder().decode(CatalogPointer.self, from: try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(TreeLayout.pointer)")))
        let flat = TreeLayout.catalogPath(version: pointer.version)
        try FileManager.default.removeItem(atPath: "\(tree)/\(flat)")
        try FileManager.default.removeItem(atPath: "\(tree)/\(flat)\(TreeLayout.signatureSuffix)")
        let top = CatalogPointer(id: pointer.id, version: pointer.version, path: TreeLayout.topPath(version: pointer.version))
        try FileIO.writeAtomically(try CanonicalJSON.encode(top), to: "\(tree)/\(TreeLayout.pointer)")
        try timestamp(expires: timestampExpires)
    }

    /// Changes a corpus's source and version so the next publish builds a new bundle for it.
    public func edit(_ corpus: String, version: String) throws {
        try dir.write("catalog/\(corpus)/edit-\(version).md", "# Edition \(version)\n\nRevised notes for edition \(version).\n")
        versions[corpus] = version
        try writeCatalogSource()
    }

    /// The catalog `catalog.json` points at.
    public func catalog() throws -> Catalog {
        let pointer = try JSONDecoder().decode(CatalogPointer.self, from: try Data(contentsOf: URL(fileURLWithPath: "\(tree)/catalog.json")))
        return try Catalog.decode(try Data(contentsOf: URL(fileURLWithPath: "\(tree)/\(pointer.path)")))
    }

    /// The tree-relative bundle path of `corpus` in the current catalog.
    public func bundlePath(_ corpus: String) throws -> String {
        guard let e = try catalog().corpora.first(where: { $0.id == corpus }) else { throw CocoaError(.fileNoSuchFile) }
        return e.bundle.path
    }

    /// An entitlement token from `corpusd token issue` covering `corpora`.
    public func token(corpora: [String]) throws -> String {
        let r = try Self.corpusd(["token", "issue", "--key", dir.url("keys/tokens.key"), "--sub", "mirror-operator",
                                  "--corpora", corpora.joined(separator: ","), "--aud", catalogID, "--expires", "1h"])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    public static func corpusd(_ args: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        let r = try ProcessRunner.run(BuiltProducts.corpusd, args, environment: environment, timeout: 120)
        guard r.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "corpusd \(args.first ?? "") exited \(r.status): \(r.stderr)"])
        }
        return r
    }

    /// Deterministic prose (a fixed vocabulary, an xorshift generator) in Markdown files of ~64 KiB.
    static func writeGeneratedText(into folder: String, bytes: Int) throws {
        let vocabulary = ("almanac tide moon harbour lantern compass meridian equinox solstice ebb flood current " +
                          "beacon reef shoal anchorage pilot ledger season harvest frost thaw gale breeze barometer " +
                          "latitude longitude sextant horizon dawn dusk twilight comet planet orbit eclipse zenith").split(separator: " ")
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Int(x % UInt64(vocabulary.count))
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var written = 0, file = 0
        while written < bytes {
            var text = "# Almanac part \(file)\n\n"
            var section = 0
            while text.utf8.count < 64 * 1024 {
                text += "## Section \(section)\n\n"
                for _ in 0..<6 {
                    var sentence: [Substring] = []
                    for _ in 0..<24 { sentence.append(vocabulary[next()]) }
                    text += sentence.joined(separator: " ") + ".\n"
                }
                text += "\n"
                section += 1
            }
            try Data(text.utf8).write(to: URL(fileURLWithPath: String(format: "%@/part-%03d.md", folder, file)))
            written += text.utf8.count
            file += 1
        }
    }
}
