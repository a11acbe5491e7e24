/// What a browse request may name (`corpus read ID DOCUMENT --at PASSAGE`, `GET /v1/read`): one
/// check, made by the client before it reads or asks, and by the server before it looks anything
/// up, so a hostile path is refused the same way on both sides.
///
/// A document is only ever matched against the paths of a corpus's `documents` table, never
/// joined to a folder; the check still refuses what no pack path is (docs/format.md, "Passage
/// pack": relative, '/'-separated), so such a request is a mistake said as one, not a lookup.
public enum BrowseArgument {
    /// Longer than any path a build or import writes; a request target is at most 4 KiB anyway.
    public static let maxDocumentPathBytes = 1024
    /// Passage ids are at most 256 bytes, derived or a source's own (docs/format.md).
    public static let maxPassageIDBytes = 256

    /// Why `path` cannot name a document of a pack, or nil when it can: empty or longer than
    /// `maxDocumentPathBytes`, a control character (NUL included), a backslash, absolute, or a
    /// `.`, `..` or empty segment.
    public static func documentPathRefusal(_ path: String) -> String? {
        let bytes = path.utf8.count
        guard bytes > 0 else { return "a document path is not empty" }
        guard bytes <= maxDocumentPathBytes else { return "a document path is at most \(maxDocumentPathBytes) bytes (this one is \(bytes))" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "a document path holds no control characters"
        }
        if path.contains("\\") { return "a document path is '/'-separated, without backslashes" }
        if path.hasPrefix("/") { return "a document path is relative to its corpus, not absolute" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            return "a document path has no empty, . or .. segment"
        }
        return nil
    }

    /// Why `id` cannot be a passage id, or nil when it can: 1 to `maxPassageIDBytes` bytes
    /// without control characters.
    public static func passageIDRefusal(_ id: String) -> String? {
        guard (1...maxPassageIDBytes).contains(id.utf8.count) else { return "a passage id is 1 to \(maxPassageIDBytes) bytes" }
        if id.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "a passage id holds no control characters"
        }
        return nil
    }
}
