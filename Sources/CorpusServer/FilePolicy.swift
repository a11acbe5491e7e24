import CorpusFormat

/// Content-Type, Cache-Control and ETag for a file of the published tree, by where it lives.
///
/// Immutable files (content-addressed bundles and catalog parts, numbered catalogs, root documents and each holder's
/// signature of one, log tiles) are cached for a year; the mutable entry points (`catalog.json`,
/// `timestamp.json`, re-signed from cron, `log/checkpoint`, `index.html`, `keys/root.pub`) and anything
/// else must be revalidated every time so that a new publish is seen at once. Bundles of entitled
/// corpora are `private`: a shared cache must never hand one to a client without a token.
enum FilePolicy {
    static let immutable = "public, max-age=31536000, immutable"
    static let privateImmutable = "private, max-age=31536000, immutable"
    static let revalidate = "no-cache"

    static func cacheControl(_ segments: [String], gated: Bool) -> String {
        if gated { return privateImmutable }
        // A log's tiles and entry bundles never change once a checkpoint names them; its
        // checkpoint is mutable and falls through to revalidation.
        if segments.count > 2, segments[0] == TreeLog.folder, segments[1] == "tile" { return immutable }
        guard segments.count == 2 else { return revalidate }
        switch segments[0] {
        case "bundles", "embedders", "deltas", "parts": return immutable
        case "catalogs": return immutable
        case "keys": return segments[1].hasPrefix("root-") ? immutable : revalidate
        default: return revalidate
        }
    }

    static func contentType(_ name: String) -> String { TreeLayout.contentType(of: name) }

    /// A strong ETag: a bundle's content hash (its file name says it), else size, mtime and inode,
    /// which change whenever a file is rewritten or replaced by rename.
    static func etag(_ segments: [String], _ id: FileIdentity) -> String {
        if segments.count == 2, segments[0] == "bundles", segments[1].hasSuffix(".corpus.zip") {
            let hash = segments[1].dropLast(".corpus.zip".count)
            if let digest = SHA256Digest(hex: String(hash)) { return "\"\(digest)\"" }
        }
        let mtime = id.mtimeSeconds &* 1_000_000_000 &+ id.mtimeNanoseconds
        return "\"\(String(id.size, radix: 16))-\(String(mtime, radix: 16))-\(String(id.inode, radix: 16))\""
    }
}
