import Foundation
import CorpusFormat

/// What ingesting a source folder produced.
public struct IngestResult: Sendable {
    public var documents: [SourceDocument]
    /// Files not used: unreadable ones (with the reason) and unsupported types.
    public var skipped: [SkippedFile]
}

/// Turns a source folder into documents: walks it in sorted path order and hands each file to
/// the ingester for its extension. A file that cannot be read is skipped with a reason; it
/// never stops the build.
public enum Ingest {
    public static let maxTextFileBytes = 64 << 20

    enum Kind { case text, markdown, html, epub }

    static func kind(of path: String) -> Kind? {
        switch (path as NSString).pathExtension.lowercased() {
        case "txt", "text": return .text
        case "md", "markdown": return .markdown
        case "html", "htm", "xhtml": return .html
        case "epub": return .epub
        default: return nil
        }
    }

    /// Lists and ingests a whole folder; the skipped files of both steps, in path order.
    public static func folder(_ root: String) throws -> IngestResult {
        let folder = try SourceFolder(root)
        let listing = try folder.list()
        var documents: [SourceDocument] = []
        let skipped = try self.folder(folder, files: listing.files, filesPerGroup: .max, width: ProcessInfo.processInfo.activeProcessorCount,
                                      prepare: { _ in () }) { group in
            documents += group.map(\.document)
        }
        return IngestResult(documents: documents, skipped: merged(listing.skipped, skipped))
    }

    /// Two lists of skipped files, each in path order, as one in path order.
    static func merged(_ a: [SkippedFile], _ b: [SkippedFile]) -> [SkippedFile] {
        (a + b).sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
    }

    /// Ingests `files` (the folder's `list()`) a group of files at a time, so a caller can consume one group while the
    /// next is parsed. Within a group files are parsed on `width` cores, and `prepare` runs on each
    /// document right there (a builder splits it into passages); `body` then gets the group's
    /// documents in path order, on the calling thread. The order never depends on scheduling.
    /// - Returns: the files skipped, with reasons, in path order.
    public static func folder<Prepared: Sendable>(
        _ folder: SourceFolder, files: [SourceFile], filesPerGroup: Int, width: Int,
        prepare: @escaping @Sendable (SourceDocument) -> Prepared,
        _ body: ([(document: SourceDocument, prepared: Prepared)]) throws -> Void
    ) throws -> [SkippedFile] {
        var skipped: [SkippedFile] = []
        var first = 0
        while first < files.count {
            let group = Array(files[first..<(first + min(files.count - first, max(1, filesPerGroup)))])
            let slots = Workers.Slots<Outcome<Prepared>>(count: group.count)
            Workers.forEach(group.count, width: width) { i in
                let file = group[i]
                guard let kind = kind(of: file.path) else { return }
                slots.set(i, Result { () throws(IngestFailure) in
                    try ingest(file, in: folder, kind: kind).filter { !$0.isEmpty }.map { ($0, prepare($0)) }
                })
            }
            var ready: [(document: SourceDocument, prepared: Prepared)] = []
            for (i, file) in group.enumerated() {
                switch slots.take(i) {
                case nil:
                    skipped.append(SkippedFile(path: file.path, reason: "unsupported file type"))
                case let .success(docs)?:
                    if docs.isEmpty { skipped.append(SkippedFile(path: file.path, reason: "no text")) }
                    ready += docs
                case let .failure(error)?:
                    skipped.append(SkippedFile(path: file.path, reason: error.reason))
                }
            }
            try body(ready)
            first += group.count
        }
        return skipped
    }

    typealias Outcome<Prepared> = Result<[(document: SourceDocument, prepared: Prepared)], IngestFailure>

    static func ingest(_ file: SourceFile, in folder: SourceFolder, kind: Kind) throws(IngestFailure) -> [SourceDocument] {
        let path = file.path
        if kind == .epub { return try IngestEPUB.documents(path: path, file: try folder.open(file).reader) }
        let bytes = try folder.read(file, limit: maxTextFileBytes)
        switch kind {
        case .html:
            if bytes.contains(0) { throw IngestFailure("binary data (NUL bytes), not HTML") }
            return [try IngestHTML.document(path: path, bytes: bytes)]
        case .text, .markdown:
            guard let text = Text.decodeUTF8(bytes) else {
                throw IngestFailure(bytes.contains(0) ? "binary data (NUL bytes), not text" : "not valid UTF-8 text")
            }
            return [kind == .text ? IngestText.document(path: path, text: text) : IngestMarkdown.document(path: path, text: text)]
        case .epub:
            return []
        }
    }
}
