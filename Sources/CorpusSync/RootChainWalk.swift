import CorpusFormat
import Foundation

/// The one walk along a published tree's root key chain (docs/format.md "Root keys"), for the
/// client's catalog refresh and the mirror: `keys/root-<n>.json` and its `.minisig` for each n
/// after the root it starts from, every link verified by the root before it
/// (`TrustStore.verifyLink`), until the tree has no next document. A document without its
/// signature is a refusal (`signatureMissing`), not the end of the chain.
public enum RootChainWalk {
    /// The links after `start`, in order; empty when the tree has nothing newer.
    ///
    /// - Parameter start: the root to continue from (the client's newest trusted root); nil starts
    ///   at root 1, which signs itself (the mirror copies the whole chain).
    /// - Parameter fetch: one small file of the tree, read to at most `cap` bytes; nil when the
    ///   tree does not have it.
    public static func links(after start: TrustedRoot?,
                             fetch: (_ path: String, _ cap: Int64) async throws -> Data?) async throws -> [VerifiedRootDocument] {
        var previous = start
        var links: [VerifiedRootDocument] = []
        for _ in 0..<TrustStore.maxChainLength {
            let path = TreeLayout.rootKeyPath(version: (previous?.version ?? 0) + 1)
            guard let json = try await fetch(path, CatalogFetcher.maxRootDocumentBytes) else { break }
            guard let signature = try await fetch(path + TreeLayout.signatureSuffix, CatalogFetcher.maxSignatureBytes) else {
                throw SyncError.signatureMissing(file: path)
            }
            let link = try TrustStore.verifyLink(json: json, signature: signature, previous: try previous ?? selfSigner(json, file: path),
                                                 file: path)
            links.append(link)
            previous = link.root
        }
        return links
    }

    /// Root 1 signs itself: its own key, as the root of "version 0".
    private static func selfSigner(_ json: Data, file: String) throws -> TrustedRoot {
        do {
            let doc = try CanonicalJSON.decode(RootKeyDocument.self, from: json, what: file)
            return TrustedRoot(version: 0, key: try doc.publicKey())
        } catch let e as FormatError {
            throw SyncError.from(e, file: file)
        }
    }
}
