import Foundation

/// A published tree on disk (docs/format.md "Published tree"), as the publisher writes it and the
/// mirror copies it: what both read back from it, and the one garbage collection both run.
public struct PublishedTree: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The versions of the signed catalogs the tree holds (`catalogs/<N>.json`, N ≥ 1), ascending.
    /// A name of any other shape is no catalog of the tree's: neither writer makes one.
    public func catalogVersions() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/catalogs")) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".json"), let n = Int(name.dropLast(5)), n >= 1, TreeLayout.catalogPath(version: n) == "catalogs/\(name)" else {
                return nil
            }
            return n
        }.sorted()
    }

    /// Removes the bundles, embedder artifacts and deltas that neither `keep` nor any unexpired
    /// catalog of the tree references, so that a client still reading an older catalog that is
    /// valid can finish. A delta is kept while a kept catalog lists it and some kept catalog still
    /// lists the version it leads from: it goes with the bundles it leads from. Returns the
    /// removed paths (relative to the tree), bundles first, each folder sorted.
    public func removeUnreferencedFiles(keep: Catalog, now: Date) -> [String] {
        func files(_ c: Catalog) -> [String] { c.corpora.map(\.bundle.path) + c.corpora.compactMap(\.payload?.path) + (c.embedders ?? []).map(\.artifact.path) }
        var catalogs = [keep]
        for version in catalogVersions() {
            // A catalog that no longer decodes promises nothing a client can read.
            guard let data = FileManager.default.contents(atPath: "\(root)/\(TreeLayout.catalogPath(version: version))"),
                  let c = try? Catalog.decode(data) else { continue }
            if let expiry = c.expiryDate, expiry > now { catalogs.append(c) }
        }
        var referenced = Set(catalogs.flatMap(files))
        let versions = Set(catalogs.flatMap { $0.corpora.map { "\($0.id)@\($0.version)" } })
        for c in catalogs {
            for e in c.corpora {
                for d in e.deltas ?? [] where versions.contains("\(e.id)@\(d.fromVersion)") {
                    referenced.insert(d.path)
                    if let payload = d.payload { referenced.insert(payload.path) }
                }
            }
        }
        var removed: [String] = []
        for (folder, suffix) in [("bundles", ".corpus.zip"), ("embedders", ".embedder.zip"), ("deltas", ".delta.zip"), ("payloads", ".age")] {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)")) ?? []).sorted() where name.hasSuffix(suffix) {
                let rel = "\(folder)/\(name)"
                if !referenced.contains(rel) {
                    FileIO.remove("\(root)/\(rel)")
                    removed.append(rel)
                }
            }
        }
        return removed
    }
}
