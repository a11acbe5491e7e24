import CorpusFormat
import Foundation

/// `corpus import FILE`: installs a bundle file under the `local` remote, verified against the
/// catalog keys of the newest root of every configured remote (or the keys given). It counts against the
/// import limit like any corpus that is not bundled.
struct BundleImporter: Sendable {
    let operation: ClientOperation

    var home: HomeLayout { operation.home }

    func importBundle(path: String, trustedKeys extra: [PublicKey]) throws -> Manifest {
        let roots = try operation.config.remotes.flatMap { try TrustStore(home: home).currentRoot(for: $0).catalogKeys }
        let keys = extra + roots
        guard !keys.isEmpty else {
            throw SyncError.untrustedKey(keyID: "(none: add a remote with --trust, or pass --trust KEY.pub)")
        }
        // Verified once, here; the installer is handed what was verified.
        let bundle = try VerifiedBundle.open(path, trustedKeys: keys)
        try refuseOverLimit(bundle.manifest)
        let installed = try Installer(home: home)
            .install(bundle, remote: HomeLayout.localRemote, bundled: false, importLimit: operation.importLimit)
        // A key given with --trust is remembered, so that `verify` can check this corpus later.
        if let key = extra.first(where: { $0.keyID == bundle.verified.signature.keyID }), !roots.contains(key) {
            try TrustStore(home: home).rememberLocal(key)
        }
        return installed
    }

    /// Counted here to refuse before extracting anything, and again by the installer under the
    /// home's import lock, where a concurrent install cannot slip in between.
    private func refuseOverLimit(_ manifest: Manifest) throws {
        guard let limit = operation.importLimit else { return }
        let already = operation.installed.contains { $0.record.remote == HomeLayout.localRemote && $0.record.id == manifest.id }
        let used = operation.installed.filter { !$0.record.bundled }.count
        if !already, used >= limit { throw SyncError.importLimit(used: used, limit: limit) }
    }
}
