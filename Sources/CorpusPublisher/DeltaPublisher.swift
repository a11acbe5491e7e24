import Foundation
import CorpusFormat
import CorpusEngine

/// The deltas one publish lists for a corpus (docs/publishing.md "Deltas"): one from each of the
/// last `bases` versions still referenced by an unexpired catalog of the tree to the version
/// being published, each kept only when it is smaller than `maxRatio` of the full bundle.
///
/// A delta already in `deltas/` for the same base and target bundle (the build cache remembers
/// it) is reused while it still hashes right; the others are written and verified in staging and
/// moved in with the bundles. Deltas go when nothing references them (`TreePublisher`'s garbage
/// collection), and with the bundles they lead from.
struct DeltaPublisher {
    /// A delta is published only below this fraction of the bundle's size: above it, the full
    /// bundle costs a client little more and needs no base.
    static let maxRatio = 0.5

    let tree: String
    let staging: String
    let key: SecretKey
    let trustedKeys: [PublicKey]
    let bases: Int

    /// A published version of a corpus an unexpired catalog of the tree lists.
    struct Published: Equatable {
        var version: CorpusVersion
        var content: SHA256Digest
        var bundle: BundleRef
    }

    /// A delta for the catalog, and the staged file to move into `deltas/` (nil: already there).
    struct Staged {
        var ref: DeltaRef
        var staged: String?
    }

    /// The deltas to list for `target` (a bundle at `targetPath`, the version `manifest` names), from
    /// the newest `bases` other versions in `published`; `cached` are the deltas the build cache
    /// remembers for this corpus. `progress` hears of each delta made, reused or left out.
    func deltas(to manifest: CachedManifest, bundle: BundleRef, at targetPath: String, published: [Published], cached: [BuildCache.CachedDelta],
                progress: (PublishProgress) -> Void) throws -> (staged: [Staged], cache: [BuildCache.CachedDelta]) {
        let candidates = published.filter { $0.version != manifest.version }.prefix(bases)
        var staged: [Staged] = [], cache: [BuildCache.CachedDelta] = []
        var extractedTarget: DeltaBuilder.Version?
        for base in candidates {
            if let hit = cached.first(where: { $0.target == bundle.digest && $0.base == base.bundle.digest }),
               hit.ref.file.matches(fileAt: "\(tree)/\(hit.ref.path)") {
                progress(.delta(id: manifest.id, from: base.version.description, bytes: hit.ref.size, bundleBytes: bundle.size, published: true, reused: true))
                staged.append(Staged(ref: hit.ref, staged: nil))
                cache.append(hit)
                continue
            }
            guard base.bundle.matches(fileAt: "\(tree)/\(base.bundle.path)") else { continue }
            let work = "\(staging)/delta-\(manifest.id)-\(base.version)"
            try FileIO.createDirectory(work, mode: 0o700)
            defer { FileIO.remove("\(work)/base") }
            if extractedTarget == nil {
                extractedTarget = try DeltaBuilder.Version.extract(targetPath, to: "\(staging)/delta-\(manifest.id)-target", trustedKeys: trustedKeys)
            }
            let baseVersion = try DeltaBuilder.Version.extract("\(tree)/\(base.bundle.path)", to: "\(work)/base", trustedKeys: trustedKeys)
            // An import's optional tables (per-document and per-passage metadata, highlights) are
            // not what a delta carries: such a corpus is always updated with its full bundle.
            guard try DeltaBuilder.carriesOnlyWhatDeltasCarry(packAt: extractedTarget!.pack),
                  try DeltaBuilder.carriesOnlyWhatDeltasCarry(packAt: baseVersion.pack) else { continue }
            let file = "\(work)/\(manifest.id).delta.zip"
            _ = try DeltaBuilder.write(from: baseVersion, to: extractedTarget!, key: key, work: work, output: file)
            // What was written is read back as a client reads it before it is published.
            _ = try DeltaReader(path: file).document(trustedKeys: [key.publicKey])
            let ref = DeltaRef(fromVersion: base.version, fromContent: base.content,
                               file: try BundleRef(hashing: file) { TreeLayout.deltaPath(sha256: $0.hex) })
            let keep = Double(ref.size) < Self.maxRatio * Double(bundle.size)
            progress(.delta(id: manifest.id, from: base.version.description, bytes: ref.size, bundleBytes: bundle.size, published: keep, reused: false))
            guard keep else {
                FileIO.remove(file)
                continue
            }
            staged.append(Staged(ref: ref, staged: file))
            cache.append(BuildCache.CachedDelta(ref: ref, base: base.bundle.digest, target: bundle.digest))
        }
        if let extractedTarget { FileIO.remove(extractedTarget.folder) }
        return (staged, cache)
    }
}
