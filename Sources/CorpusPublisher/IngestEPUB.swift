import Foundation
import CorpusFormat

/// EPUB (`.epub`): every XHTML chapter of the spine becomes its own document.
///
/// `META-INF/container.xml` names the OPF package file; its manifest maps ids to files and its
/// spine gives the reading order. A chapter's path is `book.epub#<member path>`; its title is
/// the book's `dc:title`, followed by the chapter's own title when it has a different one.
/// Every member is read with a size cap and the whole book with a total cap (zip bombs).
enum IngestEPUB {
    static let maxMetadataBytes = 4 << 20
    static let maxChapterBytes = 16 << 20
    static let maxTotalBytes = 256 << 20
    static let maxChapters = 10_000
    static let chapterTypes: Set<String> = ["application/xhtml+xml", "text/html"]

    /// The chapters of the EPUB open in `file` (opened by `SourceFolder`, so never through a link).
    static func documents(path: String, file: FileHandleReader) throws(IngestFailure) -> [SourceDocument] {
        let zip: ZipReader
        do {
            zip = try ZipReader(duplicating: file.descriptor, path: path)
        } catch {
            throw IngestFailure("corrupt EPUB: not a readable zip archive (\((error as? FormatError).map(reason) ?? "\(error)"))")
        }
        do {
            return try read(zip, path: path)
        } catch let e as FormatError {
            throw IngestFailure("corrupt EPUB: \(reason(e))")
        } catch let e as IngestFailure {
            throw e
        } catch {
            throw IngestFailure("corrupt EPUB: \(error)")
        }
    }

    /// Why a member of the book did not read, as a skip reason says it.
    static func reason(_ e: FormatError) -> String {
        switch e {
        case let .unsafeMemberName(name): return "member name \(name.debugDescription) is not a plain path inside the archive"
        case let .missingMember(name): return "member \(name) is missing"
        case let .sizeExceeded(name, limit): return "member \(name) is larger than \(limit) bytes"
        case let .archiveInconsistent(reason): return reason
        default: return e.description
        }
    }

    private static func read(_ zip: ZipReader, path: String) throws -> [SourceDocument] {
        let container = try metadata(zip, "META-INF/container.xml")
        let named = withExtendedLifetime(container) { container.root?.descendants(named: "rootfile").first?.attribute("full-path") }
        guard let named, !named.isEmpty else { throw IngestFailure("corrupt EPUB: META-INF/container.xml names no package file") }
        // full-path is relative to the root of the book (OCF 3.0 §3.5.1); it may not climb out of it.
        guard let opfPath = resolve(named, base: "") else {
            throw IngestFailure("corrupt EPUB: package path \(named.debugDescription) leaves the book")
        }
        let opf = try metadata(zip, opfPath)
        // Nodes borrow the tree's memory: keep it alive while they are read.
        defer { withExtendedLifetime(opf) {} }
        guard let package = opf.root else { throw IngestFailure("corrupt EPUB: \(opfPath) is not XML") }
        let bookTitle = package.descendants(named: "title").first.map { Text.collapseWhitespace($0.textContent) }
            .flatMap { $0.isEmpty ? nil : $0 } ?? Text.fileStem(path)
        let base = opfPath.split(separator: "/").dropLast().joined(separator: "/")
        var items: [String: (href: String, type: String)] = [:]
        for item in package.descendants(named: "item") {
            if let id = item.attribute("id"), let href = item.attribute("href") {
                items[id] = (href, item.attribute("media-type") ?? "")
            }
        }
        let spine = package.descendants(named: "itemref").compactMap { $0.attribute("idref") }
        guard !spine.isEmpty, spine.count <= maxChapters else {
            throw IngestFailure("corrupt EPUB: the spine lists \(spine.count) chapters")
        }
        var documents: [SourceDocument] = []
        var seen = Set<String>()
        var total = 0
        for idref in spine {
            guard let item = items[idref], chapterTypes.contains(item.type.lowercased()) else { continue }
            guard let member = resolve(item.href, base: base) else {
                throw IngestFailure("corrupt EPUB: chapter path \(item.href.debugDescription) leaves the book")
            }
            guard seen.insert(member).inserted else { continue }
            let bytes = try zip.read(member, limit: maxChapterBytes)
            total += bytes.count
            guard total <= maxTotalBytes else { throw IngestFailure("EPUB holds more than \(maxTotalBytes >> 20) MiB of text") }
            let e: IngestHTML.Extracted
            do { e = try IngestHTML.extract(bytes) } catch { throw IngestFailure("chapter \(member): \(error.reason)") }
            let chapterTitle = e.title ?? e.firstH1
            let title = chapterTitle.map { $0 == bookTitle || $0.isEmpty ? bookTitle : "\(bookTitle) — \($0)" } ?? bookTitle
            documents.append(SourceDocument(path: "\(path)#\(member)", title: title, sections: e.sections))
        }
        return documents
    }

    /// A metadata member (container, package file) parsed as XML.
    private static func metadata(_ zip: ZipReader, _ name: String) throws -> XMLTree {
        do {
            return try XMLTree(try zip.read(name, limit: maxMetadataBytes), flavor: .xml)
        } catch let e as XMLTree.Failure {
            switch e {
            case .unparsable: throw IngestFailure("corrupt EPUB: \(name) is not XML")
            case .nestingTooDeep: throw IngestFailure("corrupt EPUB: \(name) is nested more than \(XMLTree.maxDepth) levels deep")
            }
        }
    }

    /// Joins an OPF-relative href to the OPF folder: fragment dropped, percent-decoded, `.` and
    /// `..` resolved; nil when it would climb out of the archive.
    static func resolve(_ href: String, base: String) -> String? {
        let noFragment = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? href
        let decoded = noFragment.removingPercentEncoding ?? noFragment
        guard !decoded.hasPrefix("/"), !decoded.contains("\\"), !decoded.contains("\0") else { return nil }
        var parts = base.isEmpty ? [] : base.split(separator: "/").map(String.init)
        for seg in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            switch seg {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(seg))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
