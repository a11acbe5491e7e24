import Foundation
import CorpusFormat

/// A gate-only server (`corpusd serve --gate-only`): it answers catalogs, keys and the index page
/// from its tree and decides every download exactly as a serving one does, but never sends a
/// content-addressed file's bytes. A granted download of an entitled bundle is answered with a
/// 302 to a presigned GET URL of the private location that expires within minutes; an open one
/// with a 302 to the public location (the bucket, or the CDN in front of it).
///
/// The presigned URL is a credential for one object until it expires: it goes only into the
/// `Location` header of the one response, never into a log line, a metric or a message.
public struct StorageRedirect: Sendable {
    public let presigner: SigV4Presigner
    /// Where bundles of entitled corpora are (the same tree paths under this location).
    public let privateLocation: S3Location
    /// The base URL of the public tree (bucket URL or CDN), without a trailing `/`.
    public let publicBase: String
    /// Seconds a presigned URL stays good.
    public let expiry: Int
    /// A presigned URL is a credential for its object until it expires: minutes, not hours (SigV4
    /// itself would allow 7 days, `SigV4Presigner.maximumExpiry`).
    public static let expiryRange = 30...3600

    public init(presigner: SigV4Presigner, privateLocation: S3Location, publicBase: String, expiry: Int = 300) {
        precondition(Self.expiryRange.contains(expiry), "presigned URL expiry outside StorageRedirect.expiryRange")
        self.presigner = presigner
        self.privateLocation = privateLocation
        self.publicBase = publicBase.hasSuffix("/") ? String(publicBase.dropLast()) : publicBase
        self.expiry = expiry
    }

    /// True for the files a gate-only server redirects: content-addressed ones
    /// (`<sha256>.<suffix>` under any folder: bundles, embedder artifacts, deltas).
    static func redirects(_ segments: [String]) -> Bool {
        guard segments.count >= 2, let name = segments.last else { return false }
        return TreeLayout.isContentAddressed(name)
    }

    /// The 302 for a decided request: presigned for a granted one, public for an open one.
    func response(_ segments: [String], granted: Bool, now: Date = Date()) -> HTTPResponse {
        let path = segments.joined(separator: "/")
        let location: String
        let cache: String
        if granted {
            location = presigner.presignedGET(bucket: privateLocation.bucket, key: privateLocation.key(for: path), expires: expiry, now: now)
            cache = "private, no-store"
        } else {
            location = publicBase + "/" + segments.map(SigV4.uriEncode).joined(separator: "/")
            cache = "no-cache"
        }
        var r = HTTPResponse(status: .found, headers: [(.location, location), (.cacheControl, cache)])
        if granted { r.headers.append((.vary, HTTPHeaderName.authorization.spelling)) }
        return r
    }
}
