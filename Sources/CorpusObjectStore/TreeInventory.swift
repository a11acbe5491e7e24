import Foundation
import CorpusFormat

/// The files of a local published tree, as `corpusd publish` or `corpusd mirror` wrote them, each
/// with its role for readers and, for content-addressed files, who may read it.
///
/// Nothing here knows the tree's folder names beyond the signed documents': a file is
/// content-addressed when its name starts with a SHA-256 (`bundles/`, `embedders/`, and what
/// later kinds add, such as deltas), and a catalog entry owns every tree path any of its string
/// fields names. The newest catalog naming a path decides its access, as the server decides.
struct TreeInventory {
    enum Role: Int, Comparable {
        /// Named by its hash: never changes, uploaded first.
        case contentAddressed
        /// `keys/root-N.json` and its signatures (`.minisig`, or one `.<KEYID>.minisig` per holder):
        /// immutable, needed to check catalogs signed by root N.
        case rootKeyDocument
        /// `catalogs/N.json` and its signature: immutable.
        case numberedCatalog
        /// `log/tile/…`: a log's tiles and entry bundles, immutable once a checkpoint names them.
        case logTile
        /// Mutable files other than the pointer (`keys/root.pub`, `index.html`, …).
        case mutable
        /// `log/checkpoint`: mutable, after every tile it names and before the freshness document.
        case logCheckpoint
        /// `timestamp.json` and its signature: mutable, after everything the new catalog names and
        /// just before the pointer, as `corpusd publish` writes them.
        case freshness
        /// `catalog.json`: last.
        case pointer

        static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }
    }

    struct File {
        var path: String
        var role: Role
        /// Only content-addressed files named by an entitled catalog entry.
        var entitled: Bool
        /// The number that orders catalogs and root documents (N); 0 for others.
        var number: Int

        /// 0 for a signature file, 1 for anything else.
        var signatureRank: Int { path.hasSuffix(TreeLayout.signatureSuffix) ? 0 : 1 }
    }

    var files: [File] = []
    var pointer: CatalogPointer
    /// Content-addressed files no catalog of the tree names (left out of the upload).
    var unreferenced: [String] = []

    static func read(tree: String) throws(ObjectStoreError) -> TreeInventory {
        guard let data = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.pointer)"),
              let pointer = try? JSONDecoder().decode(CatalogPointer.self, from: data) else {
            throw .notATree(path: tree, reason: "it has no readable \(TreeLayout.pointer)")
        }
        // Newest catalog first: the first to name a path decides its access.
        var access: [String: Bool] = [:]
        let read = readCatalogs(tree: tree) { owned in
            for (path, entitled) in owned where access[path] == nil { access[path] = entitled }
        }
        guard read.contains(pointer.version) else {
            throw .notATree(path: tree, reason: "its pointer names catalog \(pointer.version), which \(TreeLayout.catalogPath(version: pointer.version)) does not hold")
        }
        var inventory = TreeInventory(pointer: pointer)
        for path in walk(tree) {
            let role = role(of: path)
            // Catalog parts (`parts/`) hold catalog metadata, public like the catalog; the top
            // documents name them, not the catalog's entries.
            if role == .contentAddressed && access[path] == nil && !path.hasPrefix("parts/") {
                inventory.unreferenced.append(path)
                continue
            }
            inventory.files.append(File(path: path, role: role, entitled: role == .contentAddressed && access[path] == true,
                                        number: number(in: path) ?? 0))
        }
        // A root document's signatures go before it: a client that finds root-N.json finds what
        // makes it trusted (it probes for the next root by name, not through the pointer).
        inventory.files.sort { ($0.role, $0.number, $0.signatureRank, $0.path) < ($1.role, $1.number, $1.signatureRank, $1.path) }
        return inventory
    }

    /// Every regular file under `tree`, relative, skipping dot names (the publisher's own state:
    /// `.staging/`, `.build-cache`, `.publish.lock`) and anything that is not a plain file.
    static func walk(_ tree: String) -> [String] {
        var out: [String] = []
        func visit(_ relative: String) {
            let full = relative.isEmpty ? tree : "\(tree)/\(relative)"
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted() where !name.hasPrefix(".") {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                var st = stat()
                guard lstat("\(tree)/\(path)", &st) == 0 else { continue }
                if (st.st_mode & S_IFMT) == S_IFDIR { visit(path) } else if (st.st_mode & S_IFMT) == S_IFREG, TreePath.isSafe(path) { out.append(path) }
            }
        }
        visit("")
        return out
    }

    static func role(of path: String) -> Role {
        if path == TreeLayout.pointer { return .pointer }
        if path == TreeLayout.timestamp || path == TreeLayout.timestamp + TreeLayout.signatureSuffix { return .freshness }
        if path == TreeLog.checkpoint { return .logCheckpoint }
        if TreeLog.isTile(path) { return .logTile }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if TreeLayout.isContentAddressed(name) { return .contentAddressed }
        if path.hasPrefix("catalogs/"), number(in: path) != nil { return .numberedCatalog }
        if path.hasPrefix("keys/root-"), number(in: path) != nil { return .rootKeyDocument }
        return .mutable
    }

    /// N of `catalogs/N.json[.minisig]` or `keys/root-N.json[.minisig]`, or of a holder's
    /// signature `keys/root-N.json.<KEYID>.minisig`.
    static func number(in path: String) -> Int? {
        var name = Substring(path.split(separator: "/").last ?? "")
        if name.hasSuffix(TreeLayout.signatureSuffix) {
            name = name.dropLast(TreeLayout.signatureSuffix.count)
            if name.hasPrefix("root-"), let holder = name.range(of: ".json.") { name = name[..<holder.upperBound].dropLast() }
        }
        guard name.hasSuffix(".json") else { return nil }
        name = name.dropLast(5)
        if name.hasPrefix("root-") { name = name.dropFirst(5) }
        return Int(name)
    }

    /// Hands `body` the paths every catalog version of the tree names (`ownedPaths`), newest
    /// first, one version at a time, and returns the versions read. A version with a top document
    /// is read from its parts, each leaf's entries as generic JSON, a subtree a newer version
    /// shares skipped (its paths were handed over already, and the newest decides): a
    /// 100,000-entry flat catalog is about 69 MB, and holding every version's decoded would not
    /// fit. A version without one, or whose parts cannot be read through, from its flat catalog.
    static func readCatalogs(tree: String, _ body: ([(String, Bool)]) -> Void) -> Set<Int> {
        let published = PublishedTree(root: tree)
        var visited = Set<PartRef>()
        var read = Set<Int>()
        for n in published.publishedVersions().reversed() {
            if let data = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.topPath(version: n))"),
               let top = try? JSONDecoder().decode(JSONValue.self, from: data), let parts = try? Catalog.decode(data).parts,
               let owned = partPaths(tree: tree, root: parts.root, visited: &visited) {
                body(ownedPaths(top) + owned)
                read.insert(n)
                continue
            }
            guard let data = FileManager.default.contents(atPath: "\(tree)/\(TreeLayout.catalogPath(version: n))"),
                  let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { continue }
            body(ownedPaths(value))
            read.insert(n)
        }
        return read
    }

    /// The paths the leaves under `root` name that are not in `visited` (which gains them); nil,
    /// `visited` unchanged, when a part is missing or does not match its reference.
    static func partPaths(tree: String, root: PartRef, visited: inout Set<PartRef>) -> [(String, Bool)]? {
        var added = Set<PartRef>()
        var owned: [(String, Bool)] = []
        var stack = [root]
        while let ref = stack.popLast() {
            guard !visited.contains(ref), added.insert(ref).inserted else { continue }
            guard ref.size <= CatalogPart.maxStoredBytes, let stored = FileManager.default.contents(atPath: "\(tree)/\(ref.path)"),
                  let part = try? CatalogPart.decode(stored: stored, ref: ref) else { return nil }
            stack.append(contentsOf: (part.children ?? [:]).values)
            if part.kind == .leaf {
                // Generic JSON, as for a flat catalog: every string of an entry, fields added later included.
                guard let json = try? Gzip.decompress(stored, limit: CatalogPart.maxDecodedBytes, what: ref.path),
                      case let .object(fields)? = try? JSONDecoder().decode(JSONValue.self, from: json),
                      let entries = fields["entries"] else { return nil }
                owned += ownedPaths(.object(["corpora": entries]))
            }
        }
        visited.formUnion(added)
        return owned
    }

    /// The tree paths one catalog names, with whether the entry naming it is entitled: every string
    /// anywhere inside a `corpora` entry belongs to that entry (bundle, deltas, whatever later
    /// formats add); strings elsewhere (the `embedders` list) are free.
    static func ownedPaths(_ catalog: JSONValue) -> [(String, Bool)] {
        guard case let .object(top) = catalog else { return [] }
        var out: [(String, Bool)] = []
        if case let .array(entries)? = top["corpora"] {
            for entry in entries {
                guard case let .object(fields) = entry else { continue }
                let entitled = fields["access"] == .string(Access.entitled.rawValue)
                // An encrypted payload (a `payload` object, the entry's or a delta's) is ciphertext:
                // public like a free bundle, so mirrors and caches carry it (format.md "Encrypted
                // entitled corpora"); the plaintext it opens stays private.
                let sealed = Set(payloadStrings(in: entry))
                out += strings(in: entry).filter(looksLikePath).map { ($0, entitled && !sealed.contains($0)) }
            }
        }
        for (name, value) in top where name != "corpora" {
            out += strings(in: value).filter(looksLikePath).map { ($0, false) }
        }
        return out
    }

    /// The strings inside any object field named `payload`, at any depth.
    static func payloadStrings(in value: JSONValue) -> [String] {
        switch value {
        case let .array(a): return a.flatMap(payloadStrings)
        case let .object(o): return o.flatMap { name, v in name == "payload" ? strings(in: v) : payloadStrings(in: v) }
        default: return []
        }
    }

    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case let .string(s): return [s]
        case let .array(a): return a.flatMap(strings)
        case let .object(o): return o.values.flatMap(strings)
        default: return []
        }
    }

    static func looksLikePath(_ s: String) -> Bool { s.contains("/") && TreePath.isSafe(s) }
}
