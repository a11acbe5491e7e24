import CorpusFormat

/// OPDS 1.2 (an Atom feed, RFC 4287) of one `OPDSFeeds.Feed`. Every catalog value is a stranger's
/// text: it is escaped for XML, and the characters XML 1.0 cannot carry at all (§2.2: the C0
/// controls but tab, newline and carriage return, and U+FFFE/U+FFFF) are dropped, since no
/// escape exists for them.
enum OPDSAtom {
    /// `updated` dates the feed and its acquisition entries; `itemDates` a navigation feed's items.
    static func render(_ feed: OPDSFeeds.Feed, _ source: OPDSFeeds.Source, updated: String, itemDates: [String]) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
          <id>\(escape(OPDSFeeds.identifier(source, feed: feed.name)))</id>
          <title>\(escape(feed.title))</title>
          <updated>\(escape(updated))</updated>
          <author><name>\(escape(source.catalogTitle))</name></author>
          <link rel="start" href="\(OPDSFeeds.rootName).atom" type="\(OPDSFeeds.atomNavigation)"/>

        """
        switch feed.kind {
        case let .navigation(items):
            out += link("self", "\(feed.name).atom", OPDSFeeds.atomNavigation)
            out += link("alternate", "\(feed.name).opds.json", OPDSFeeds.opdsJSON)
            for (i, item) in items.enumerated() {
                out += """
                  <entry>
                    <id>\(escape(OPDSFeeds.identifier(source, feed: item.feed)))</id>
                    <title>\(escape(item.title))</title>
                    <updated>\(escape(i < itemDates.count ? itemDates[i] : updated))</updated>
                    <content type="text">\(escape(item.summary)) \(item.count) in all.</content>
                    <link rel="subsection" href="\(item.feed).atom" type="\(OPDSFeeds.atomAcquisition)"/>
                  </entry>

                """
            }
        case let .acquisition(page):
            out += link("self", "\(feed.name).atom", OPDSFeeds.atomAcquisition)
            out += link("up", "\(OPDSFeeds.rootName).atom", OPDSFeeds.atomNavigation)
            out += link("alternate", "\(feed.name).opds.json", OPDSFeeds.opdsJSON)
            out += link("first", "\(page.name(1)).atom", OPDSFeeds.atomAcquisition)
            out += link("last", "\(page.name(page.pages)).atom", OPDSFeeds.atomAcquisition)
            if page.number > 1 { out += link("previous", "\(page.name(page.number - 1)).atom", OPDSFeeds.atomAcquisition) }
            if page.number < page.pages { out += link("next", "\(page.name(page.number + 1)).atom", OPDSFeeds.atomAcquisition) }
            out += "  <opensearch:totalResults>\(page.total)</opensearch:totalResults>\n"
            out += "  <opensearch:itemsPerPage>\(page.pageSize)</opensearch:itemsPerPage>\n"
            out += "  <opensearch:startIndex>\((page.number - 1) * page.pageSize + 1)</opensearch:startIndex>\n"
            for e in page.entries { out += entry(e, source, updated: updated) }
        }
        return out + "</feed>\n"
    }

    static func entry(_ e: OPDSFeeds.Listing, _ source: OPDSFeeds.Source, updated: String) -> String {
        """
          <entry>
            <id>\(escape(OPDSFeeds.identifier(source, e)))</id>
            <title>\(escape(e.title))</title>
            <updated>\(escape(updated))</updated>
            <dc:identifier>\(escape(e.id))</dc:identifier>
            <dc:language>\(escape(e.language))</dc:language>
            <dc:rights>\(escape(e.license))</dc:rights>
            <summary type="text">\(escape(e.description))</summary>
            <category scheme="urn:corpussync:access" term="\(e.access.rawValue)" label="\(e.access.rawValue)"/>
            <link rel="\(OPDSFeeds.acquisitionRelation(e))" href="\(escape(OPDSFeeds.bundleHref(e)))" type="\(OPDSFeeds.bundleType)" length="\(e.bundleSize)" title="\(escape(OPDSFeeds.acquisitionTitle(e)))"/>
          </entry>

        """
    }

    static func link(_ rel: String, _ href: String, _ type: String) -> String {
        "  <link rel=\"\(rel)\" href=\"\(escape(href))\" type=\"\(type)\"/>\n"
    }

    /// Text as XML 1.0 character data or an attribute value: the five special characters as
    /// entities, characters XML cannot represent dropped.
    static func escape(_ s: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
