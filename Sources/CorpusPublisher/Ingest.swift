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

    public static func folder(_ root: String) throws -> IngestResult {
        var documents: [SourceDocument] = []
        let skipped = try folder(root, files: try listing(root), filesPerGroup: .max, width: ProcessInfo.processInfo.activeProcessorCount,
                                 prepare: { _ in () }) { group in
            documents += group.map(\.document)
        }
        return IngestResult(documents: documents, skipped: skipped)
    }

    /// The files of a source folder to ingest (`files(under:)`), or `sourceNotFound` when it is
    /// not a folder.
    public static func listing(_ root: String) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw PublisherError.sourceNotFound(path: root)
        }
        return try files(under: root)
    }

    /// Ingests `paths` (the folder's `listing`) a group of files at a time, so a caller can consume one group while the
    /// next is parsed. Within a group files are parsed on `width` cores, and `prepare` runs on each
    /// document right there (a builder splits it into passages); `body` then gets the group's
    /// documents in path order, on the calling thread. The order never depends on scheduling.
    /// - Returns: the files skipped, with reasons, in path order.
    public static func folder<Prepared: Sendable>(
        _ root: String, files paths: [String], filesPerGroup: Int, width: Int,
        prepare: @escaping @Sendable (SourceDocument) -> Prepared,
        _ body: ([(document: SourceDocument, prepared: Prepared)]) throws -> Void
    ) throws -> [SkippedFile] {
        var skipped: [SkippedFile] = []
        var first = 0
        while first < paths.count {
            let group = Array(paths[first..<(first + min(paths.count - first, max(1, filesPerGroup)))])
            let slots = Workers.Slots<Outcome<Prepared>>(count: group.count)
            Workers.forEach(group.count, width: width) { i in
                let rel = group[i]
                guard let kind = kind(of: rel) else { return }
                slots.set(i, Result { () throws(IngestFailure) in
                    try ingest("\(root)/\(rel)", path: rel, kind: kind).filter { !$0.isEmpty }.map { ($0, prepare($0)) }
                })
            }
            var ready: [(document: SourceDocument, prepared: Prepared)] = []
            for (i, rel) in group.enumerated() {
                switch slots.take(i) {
                case nil:
                    skipped.append(SkippedFile(path: rel, reason: "unsupported file type"))
                case let .success(docs)?:
                    if docs.isEmpty { skipped.append(SkippedFile(path: rel, reason: "no text")) }
                    ready += docs
                case let .failure(error)?:
                    skipped.append(SkippedFile(path: rel, reason: error.reason))
                }
            }
            try body(ready)
            first += group.count
        }
        return skipped
    }

    typealias Outcome<Prepared> = Result<[(document: SourceDocument, prepared: Prepared)], IngestFailure>

    static func ingest(_ full: String, path: String, kind: Kind) throws(IngestFailure) -> [SourceDocument] {
        if kind == .epub { return try IngestEPUB.documents(path: path, file: full) }
        guard let size = FileIO.fileSize(full) else { throw IngestFailure("cannot be read") }
        guard size <= maxTextFileBytes else { throw IngestFailure("larger than \(maxTextFileBytes >> 20) MiB") }
        guard let data = FileManager.default.contents(atPath: full) else { throw IngestFailure("cannot be read") }
        let bytes = [UInt8](data)
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

    /// Regular files below `root` (following file symlinks, not folder symlinks), skipping dotfiles
    /// and dot-folders, as `/`-separated relative paths sorted by their UTF-8 bytes.
    static func files(under root: String) throws -> [String] {
        var out: [String] = []
        func visit(_ rel: String) throws {
            let dir = rel.isEmpty ? root : "\(root)/\(rel)"
            let names: [String]
            do { names = try FileManager.default.contentsOfDirectory(atPath: dir) } catch {
                throw FormatError.io(operation: "list", path: dir, errno: EACCES)
            }
            for name in names where !name.hasPrefix(".") {
                let child = rel.isEmpty ? name : "\(rel)/\(name)"
                let full = "\(root)/\(child)"
                var st = stat()
                guard lstat(full, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: try visit(child)
                case S_IFREG: out.append(child)
                case S_IFLNK:
                    var target = stat()
                    if stat(full, &target) == 0, target.st_mode & S_IFMT == S_IFREG { out.append(child) }
                default: continue
                }
            }
        }
        try visit("")
        return out.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
