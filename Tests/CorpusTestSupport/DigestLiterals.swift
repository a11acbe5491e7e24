import CorpusFormat

extension SHA256Digest {
    /// A digest whose 64 hex digits are all `digit` (a lower-case hex digit), for tests that need
    /// some well-formed digest.
    public static func filled(_ digit: Character) -> SHA256Digest {
        SHA256Digest(hex: String(repeating: digit, count: 64))!
    }
}
