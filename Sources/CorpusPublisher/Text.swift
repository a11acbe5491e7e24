/// Small text helpers shared by the ingesters.
enum Text {
    /// Collapses every run of whitespace (including newlines and NBSP) to one space and trims the ends.
    static func collapseWhitespace(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for u in s.unicodeScalars {
            if u.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") ; pendingSpace = false }
                out.append(u)
            }
        }
        return String(out)
    }

    /// Decodes bytes as UTF-8 text, refusing binary files: a NUL byte or invalid UTF-8 means "not text".
    /// A leading byte-order mark is dropped.
    static func decodeUTF8(_ bytes: [UInt8]) -> String? {
        if bytes.contains(0) { return nil }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        return String(validating: body, as: UTF8.self)
    }

    /// The file name without folders or extension, used as a title when a document has none.
    static func fileStem(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
