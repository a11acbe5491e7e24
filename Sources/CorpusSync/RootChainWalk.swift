import CorpusFormat
import Foundation

/// The one walk along a published tree's root chain (docs/format.md "Root document"), for the
/// client's catalog refresh and the mirror: `keys/root-<n>.json` and its signature files for each
/// n after the root it starts from, every link verified by the root before it
/// (`TrustStore.verifyLink`), until the tree has no next document or `limit` links were walked.
/// A document without the signatures it needs is a refusal, not the end of the chain.
public enum RootChainWalk {
    /// How many root versions one refresh walks (python-tuf's default); the next refresh goes on
    /// from the last one walked, which is kept.
    public static let perRefreshLimit = 32

    /// The links walked, and whether the tree holds more than `limit` allowed.
    public struct Walk: Sendable {
        public var links: [VerifiedRootDocument]
        /// True when the walk stopped at `limit` with a newer root still in the tree.
        public var truncated: Bool
        /// The valid links walked before a refusal, kept as TUF §5.3.8 allows.
        public var refusal: SyncError?
    }

    /// The links after `start`, in order, stopping at the first refusal (returned in `refusal`,
    /// with the valid links before it).
    ///
    /// - Parameter start: the root to continue from (the client's newest trusted root); nil starts
    ///   at root 1, which signs itself (the mirror copies the whole chain).
    /// - Parameter fetch: one small file of the tree, read to at most `cap` bytes; nil when the
    ///   tree does not have it.
    public static func walk(after start: TrustedRoot?, limit: Int = perRefreshLimit,
                            fetch: @escaping @Sendable (_ path: String, _ cap: Int64) async throws -> Data?) async throws -> Walk {
        var previous = start
        var links: [VerifiedRootDocument] = []
        while true {
            let version = (previous?.version ?? 0) + 1
            let path = TreeLayout.rootKeyPath(version: version)
            // The signatures of the previous root's keys are asked for with the document: most
            // rotations keep some holders, so most links cost one round of requests, not two.
            let guessed = links.count == limit ? [] : Self.likelySignaturePaths(version: version, previous: previous)
            async let early = signatures(at: guessed, fetch: fetch)
            guard let json = try await fetch(path, CatalogFetcher.maxRootDocumentBytes) else {
                _ = try? await early
                return Walk(links: links, truncated: false)
            }
            if links.count == limit { return Walk(links: links, truncated: true) }
            do {
                let needed = try TrustStore.signaturePaths(json: json, previous: previous, file: path)
                var offered = try await early
                offered.merge(try await signatures(at: needed.filter { !guessed.contains($0) }, fetch: fetch)) { a, _ in a }
                let names = Set(needed.map(TrustStore.fileName))
                offered = offered.filter { names.contains($0.key) }
                let link = try TrustStore.verifyLink(json: json, signatures: offered, previous: previous, file: path)
                links.append(link)
                previous = link.root
            } catch let e as SyncError where e.category == .verification {
                return Walk(links: links, truncated: false, refusal: e)
            }
        }
    }

    /// The signature files root `version` most likely has, known before its document is read:
    /// one per root key of the previous root, and the legacy single file after a format-1 root.
    static func likelySignaturePaths(version: Int, previous: TrustedRoot?) -> [String] {
        guard let previous else { return [] }
        let own = previous.roles.role(.root).keyIDs.map { TreeLayout.rootSignaturePath(version: version, signer: $0) }
        return previous.roles.format == 1 ? [TreeLayout.rootKeyPath(version: version) + TreeLayout.signatureSuffix] + own : own
    }

    /// The signature files at `paths` that the tree has, by file name, asked for all at once:
    /// a root's holders' files are independent, and one round trip for all of them keeps a
    /// refresh across many rotations from paying one per holder.
    static func signatures(at paths: [String], fetch: @escaping @Sendable (_ path: String, _ cap: Int64) async throws -> Data?) async throws -> [String: Data] {
        try await withThrowingTaskGroup(of: (String, Data?).self) { group in
            for p in paths { group.addTask { (TrustStore.fileName(p), try await fetch(p, CatalogFetcher.maxSignatureBytes)) } }
            var offered: [String: Data] = [:]
            for try await (name, data) in group { if let data { offered[name] = data } }
            return offered
        }
    }

    /// The links after `start`; any refusal is thrown (the mirror copies a chain whole or not at all).
    public static func links(after start: TrustedRoot?,
                             fetch: @escaping @Sendable (_ path: String, _ cap: Int64) async throws -> Data?) async throws -> [VerifiedRootDocument] {
        let walk = try await walk(after: start, limit: TrustStore.maxChainLength, fetch: fetch)
        if let refusal = walk.refusal { throw refusal }
        return walk.links
    }
}
