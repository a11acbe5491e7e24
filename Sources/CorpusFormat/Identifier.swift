/// Validation of ids that end up in file names and URLs (corpus ids, catalog ids, remote names).
///
/// An id is 1 to 64 characters of `a-z 0-9 . _ -`, starting with a letter or digit,
/// and never `..`: it can never name a path outside the folder it is joined to.
public enum Identifier {
    public static let maxLength = 64

    public static func isValid(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...maxLength).contains(bytes.count), isAlnum(bytes[0]) else { return false }
        guard !id.contains("..") else { return false }
        return bytes.allSatisfy { isAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    public static func validate(_ id: String, what: String) throws {
        guard isValid(id) else {
            let shown = id.count > 80 ? String(id.prefix(80)) + "…" : id
            throw FormatError.malformed(what: what, reason: "\(shown.debugDescription) is not a valid id (1-64 of a-z 0-9 . _ -, starting with a letter or digit)")
        }
    }

    private static func isAlnum(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }
}
