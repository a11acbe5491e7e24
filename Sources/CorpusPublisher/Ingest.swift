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
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDir), isDir.boolValue else {
            throw PublisherError.sourceNotFound(path: root)
        }
        let paths = try files(under: root)
        // Files are independent: parse them on every core, then merge in path order so the
        // result (and so the pack) does not depend on scheduling.
        let outcomes = UnsafeMutableBufferPointer<Result<[SourceDocument], IngestFailure>?>.allocate(capacity: paths.count)
        outcomes.initialize(repeating: nil)
        defer { outcomes.deinitialize(); outcomes.deallocate() }
        let slots = Slots(outcomes)
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            let rel = paths[i]
            guard let kind = kind(of: rel) else { return }
            slots.base[i] = Result { () throws(IngestFailure) in try ingest("\(root)/\(rel)", path: rel, kind: kind) }
        }
        var documents: [SourceDocument] = []
        var skipped: [SkippedFile] = []
        for (i, rel) in paths.enumerated() {
            switch outcomes[i] {
            case nil:
                skipped.append(SkippedFile(path: rel, reason: "unsupported file type"))
            case let .success(docs)?:
                let nonEmpty = docs.filter { !$0.isEmpty }
                if nonEmpty.isEmpty { skipped.append(SkippedFile(path: rel, reason: "no text")) }
                documents += nonEmpty
            case let .failure(error)?:
                skipped.append(SkippedFile(path: rel, reason: error.reason))
            }
        }
        return IngestResult(documents: documents, skipped: skipped)
    }

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

    /// Result slots written by concurrent workers, each at its own index only.
    final class Slots: @unchecked Sendable {
        let base: UnsafeMutableBufferPointer<Result<[SourceDocument], IngestFailure>?>
        init(_ base: UnsafeMutableBufferPointer<Result<[SourceDocument], IngestFailure>?>) { self.base = base }
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
