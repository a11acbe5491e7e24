import Foundation
import CorpusFormat

/// What the last publish wrote under `opds/`, kept in `opds/.state` so the next one renders only
/// the feeds whose content changed (`OPDSFeeds.write`): per feed, the digest of everything it is
/// rendered from but its date, and that date (the issue time of the catalog in which its content
/// last changed). A dotfile: `corpusd serve` and nginx answer 404 for it, the S3 deploy's walk
/// skips it, and `corpusd mirror` does not copy `opds/`.
///
/// The state is a cache, never an authority: one that is missing, damaged or written by renderers
/// that no longer give the same bytes (`fingerprint`) reads as nil, and every feed is rendered.
struct OPDSFeedState: Equatable {
    struct Feed: Equatable {
        var digest: SHA256Digest
        var date: String
    }

    static let fileName = ".state"
    static let header = "corpussync-opds-state 1"

    var pages: [String: Feed] = [:]

    /// `header`, `fingerprint HEX`, then `NAME DIGEST DATE` a feed, by name.
    func bytes() -> Data {
        var out = "\(Self.header)\nfingerprint \(Self.rendererFingerprint.hex)\n"
        for (name, feed) in pages.sorted(by: { $0.key < $1.key }) { out += "\(name) \(feed.digest.hex) \(feed.date)\n" }
        return Data(out.utf8)
    }

    /// The state in `folder`, or nil when it is absent, not exactly what `bytes()` writes, or from
    /// renderers that render differently.
    static func read(folder: String) -> OPDSFeedState? {
        guard let data = FileManager.default.contents(atPath: "\(folder)/\(fileName)"),
              let text = String(data: data, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == header, lines[1] == "fingerprint \(rendererFingerprint.hex)" else { return nil }
        var state = OPDSFeedState()
        for line in lines.dropFirst(2) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty, let digest = SHA256Digest(hex: String(fields[1])),
                  Timestamp.parse(String(fields[2])) != nil,
                  state.pages.updateValue(Feed(digest: digest, date: String(fields[2])), forKey: String(fields[0])) == nil else { return nil }
        }
        return state
    }

    /// The digest of what `feed` is rendered from, its date apart (a navigation feed's item
    /// dates are in it): the same digest means the same bytes at the same date.
    static func digest(_ feed: OPDSFeeds.Feed, _ source: OPDSFeeds.Source, itemDates: [String] = []) -> SHA256Digest {
        var bytes: [UInt8] = []
        func add(_ s: String) {
            // Length-prefixed, so no two sequences of fields give the same bytes.
            withUnsafeBytes(of: UInt64(s.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: s.utf8)
        }
        func add(_ n: some FixedWidthInteger) { withUnsafeBytes(of: Int64(n).littleEndian) { bytes.append(contentsOf: $0) } }
        add(source.catalogID); add(source.catalogTitle); add(feed.name); add(feed.title)
        switch feed.kind {
        case let .navigation(items):
            add(0); add(items.count)
            for (i, item) in items.enumerated() {
                add(item.title); add(item.summary); add(item.feed); add(item.count); add(item.series)
                add(i < itemDates.count ? itemDates[i] : "")
            }
        case let .acquisition(page):
            add(1); add(page.number); add(page.pages); add(page.total); add(page.pageSize); add(page.series); add(page.entries.count)
            bytes.reserveCapacity(bytes.count + page.entries.count * 256)
            for e in page.entries {
                add(e.id); add(e.version); add(e.title); add(e.description); add(e.language); add(e.license)
                add(e.access.rawValue); add(e.bundlePath); add(e.bundleSize)
            }
        }
        return SHA256.digest(bytes)
    }

    /// The bytes the renderers give for a fixed sample of every kind of feed (navigation, a
    /// middle page with both access kinds and text to escape, an empty page), hashed: a release
    /// whose renderers write other bytes for the same inputs finds another fingerprint in the
    /// state and renders every feed once.
    static let rendererFingerprint: SHA256Digest = {
        let source = OPDSFeeds.Source(catalogID: "sample", catalogTitle: "Sample & <\"catalog\"> \u{01}")
        let listings = [Access.free, .entitled].map { access in
            OPDSFeeds.Listing(id: "c-\(access.rawValue)", version: "1.2", title: "T <&> '\u{1B}'", description: "D \"\u{7F}\"",
                              language: "en", license: "CC-BY-4.0", access: access, bundlePath: "bundles/ab/cd.corpus.zip", bundleSize: 1234)
        }
        let page = OPDSFeeds.Page(entries: listings[...], number: 2, pages: 3, total: 102, pageSize: 50, series: "all")
        let empty = OPDSFeeds.Page(entries: [][...], number: 1, pages: 1, total: 0, pageSize: 50, series: "lang-en")
        let navigation = [OPDSFeeds.NavigationItem(title: "All", summary: "S <&>", feed: "all-1", count: 102, series: "all"),
                          OPDSFeeds.NavigationItem(title: "Language: en", summary: "E", feed: "lang-en-1", count: 0, series: "lang-en")]
        let date = "2000-01-01T00:00:00Z"
        let files = OPDSFeeds.render(.init(name: OPDSFeeds.rootName, title: "Root", kind: .navigation(navigation)), source,
                                     updated: date, itemDates: [date, "2000-01-02T00:00:00Z"])
            + OPDSFeeds.render(.init(name: "all-2", title: "All (page 2 of 3)", kind: .acquisition(page)), source, updated: date)
            + OPDSFeeds.render(.init(name: "lang-en-1", title: "Language: en", kind: .acquisition(empty)), source, updated: date)
        return SHA256.digest(Data(files.map(\.bytes).joined()))
    }()
}
