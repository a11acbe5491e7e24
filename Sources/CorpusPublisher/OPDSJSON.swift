import Foundation
import CorpusFormat

/// OPDS 2.0 (JSON, on the Readium Web Publication Manifest) of one `OPDSFeeds.Feed`, from Codable
/// shapes: JSONEncoder escapes what JSON requires, control characters included (`\u0001`), so a
/// title reaches a reader exactly as the catalog holds it.
enum OPDSJSON {
    struct Link: Encodable {
        var rel: String?
        var href: String
        var type: String
        var title: String?
        var size: Int64?
        var properties: Properties?
    }

    struct Properties: Encodable {
        var numberOfItems: Int
    }

    struct FeedMetadata: Encodable {
        var title: String
        var identifier: String
        var modified: String
        var numberOfItems: Int?
        var itemsPerPage: Int?
        var currentPage: Int?
    }

    struct PublicationMetadata: Encodable {
        var type = "http://schema.org/Dataset"
        var title: String
        var identifier: String
        var modified: String
        var language: String
        var description: String
        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case title, identifier, modified, language, description
        }
    }

    struct Publication: Encodable {
        var metadata: PublicationMetadata
        var links: [Link]
    }

    struct Feed: Encodable {
        var metadata: FeedMetadata
        var links: [Link]
        var navigation: [Link]?
        var publications: [Publication]?
    }

    /// `updated` dates the feed and its publications.
    static func render(_ feed: OPDSFeeds.Feed, _ source: OPDSFeeds.Source, updated: String) -> Data {
        let start = Link(rel: "start", href: "\(OPDSFeeds.rootName).opds.json", type: OPDSFeeds.opdsJSON)
        let alternate = Link(rel: "alternate", href: "\(feed.name).atom", type: feed.isNavigation ? OPDSFeeds.atomNavigation : OPDSFeeds.atomAcquisition)
        var out: Feed
        switch feed.kind {
        case let .navigation(items):
            out = Feed(metadata: FeedMetadata(title: feed.title, identifier: OPDSFeeds.identifier(source, feed: feed.name), modified: updated),
                       links: [Link(rel: "self", href: "\(feed.name).opds.json", type: OPDSFeeds.opdsJSON), start, alternate],
                       navigation: items.map {
                           Link(rel: "subsection", href: "\($0.feed).opds.json", type: OPDSFeeds.opdsJSON, title: $0.title,
                                properties: Properties(numberOfItems: $0.count))
                       })
        case let .acquisition(page):
            var links = [Link(rel: "self", href: "\(feed.name).opds.json", type: OPDSFeeds.opdsJSON), start,
                         Link(rel: "up", href: "\(OPDSFeeds.rootName).opds.json", type: OPDSFeeds.opdsJSON), alternate,
                         Link(rel: "first", href: "\(page.name(1)).opds.json", type: OPDSFeeds.opdsJSON),
                         Link(rel: "last", href: "\(page.name(page.pages)).opds.json", type: OPDSFeeds.opdsJSON)]
            if page.number > 1 { links.append(Link(rel: "previous", href: "\(page.name(page.number - 1)).opds.json", type: OPDSFeeds.opdsJSON)) }
            if page.number < page.pages { links.append(Link(rel: "next", href: "\(page.name(page.number + 1)).opds.json", type: OPDSFeeds.opdsJSON)) }
            out = Feed(metadata: FeedMetadata(title: feed.title, identifier: OPDSFeeds.identifier(source, feed: feed.name), modified: updated,
                                              numberOfItems: page.total, itemsPerPage: page.pageSize, currentPage: page.number),
                       links: links,
                       // An empty page (a catalog with no corpora) has no publications: the
                       // schema wants at least one, and `navigation` back to the root instead.
                       navigation: page.entries.isEmpty ? [Link(rel: "up", href: "\(OPDSFeeds.rootName).opds.json", type: OPDSFeeds.opdsJSON, title: source.catalogTitle)] : nil,
                       publications: page.entries.isEmpty ? nil : page.entries.map { publication($0, source, updated: updated) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The shapes hold strings and integers only: encoding cannot fail.
        return (try? encoder.encode(out)) ?? Data("{}".utf8)
    }

    static func publication(_ e: OPDSFeeds.Listing, _ source: OPDSFeeds.Source, updated: String) -> Publication {
        Publication(metadata: PublicationMetadata(title: e.title, identifier: OPDSFeeds.identifier(source, e), modified: updated,
                                                  language: e.language, description: e.description),
                    links: [Link(rel: OPDSFeeds.acquisitionRelation(e), href: OPDSFeeds.bundleHref(e), type: OPDSFeeds.bundleType,
                                 title: OPDSFeeds.acquisitionTitle(e), size: e.bundleSize)])
    }
}

extension OPDSFeeds.Feed {
    var isNavigation: Bool { if case .navigation = kind { true } else { false } }
}
