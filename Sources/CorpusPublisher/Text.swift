/// Small text helpers shared by the ingesters. They work on UTF-8 bytes: ingest touches every
/// byte of every source file, and Character-level processing (grapheme breaking, Unicode
/// property lookups) made it the slowest step of a build.
enum Text {
    /// Collapses every run of whitespace (ASCII whitespace, NEL, NBSP and the other Unicode
    /// spaces) to one space and trims the ends.
    static func collapseWhitespace(_ s: String) -> String {
        var s = s
        return s.withUTF8 { collapseWhitespace(bytes: $0) }
    }

    static func collapseWhitespace(bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        var i = 0
        let n = bytes.count
        while i < n {
            let width = whitespaceWidth(bytes, at: i)
            if width > 0 {
                pendingSpace = !out.isEmpty
                i += width
            } else {
                if pendingSpace {
                    out.append(0x20)
                    pendingSpace = false
                }
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte length of the whitespace scalar starting at `i`, or 0 when there is none there.
    /// Covers White_Space: ASCII \t \n \v \f \r and space, U+0085, U+00A0, U+1680, U+2000–U+200A,
    /// U+2028, U+2029, U+202F, U+205F, U+3000.
    @inline(__always)
    static func whitespaceWidth(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let c = b[i]
        if c < 0x80 { return c == 0x20 || (0x09...0x0D).contains(c) ? 1 : 0 }
        let n = b.count
        switch c {
        case 0xC2 where i + 1 < n:
            return b[i + 1] == 0x85 || b[i + 1] == 0xA0 ? 2 : 0
        case 0xE1 where i + 2 < n:
            return b[i + 1] == 0x9A && b[i + 2] == 0x80 ? 3 : 0
        case 0xE2 where i + 2 < n:
            if b[i + 1] == 0x80 {
                let d = b[i + 2]
                return (0x80...0x8A).contains(d) || d == 0xA8 || d == 0xA9 || d == 0xAF ? 3 : 0
            }
            return b[i + 1] == 0x81 && b[i + 2] == 0x9F ? 3 : 0
        case 0xE3 where i + 2 < n:
            return b[i + 1] == 0x80 && b[i + 2] == 0x80 ? 3 : 0
        default:
            return 0
        }
    }

    /// True when the text has anything but whitespace.
    static func hasContent(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            var i = 0
            while i < b.count {
                let w = whitespaceWidth(b, at: i)
                if w == 0 { return true }
                i += w
            }
            return false
        }
    }

    /// True for a line of only ASCII spaces and tabs (and a stray CR).
    static func isBlank<S: StringProtocol>(_ line: S) -> Bool {
        line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// Splits text into lines at `\n`, dropping a `\r` before it, without grapheme breaking.
    static func lines(_ text: String) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { slice in
            var line = Substring(slice)
            if line.utf8.last == 0x0D { line = Substring(line.utf8.dropLast()) }
            return line
        }
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
