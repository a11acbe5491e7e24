import Testing
@testable import CorpusPublisher

/// Timestamps as the other apps write them, turned into the pack's one spelling (UTC, whole
/// seconds), so they compare as text; anything else is no timestamp.
@Suite struct SourceTimestampTests {
    static let accepted: [(String, String)] = [
        ("2026-03-01T09:30:00Z", "2026-03-01T09:30:00Z"),
        ("2026-03-01T09:30:00.750Z", "2026-03-01T09:30:00Z"),
        ("2026-03-01T09:30:00+02:00", "2026-03-01T07:30:00Z"),
        ("2026-03-01T09:30:00+0200", "2026-03-01T07:30:00Z"),
        ("2026-02-27T18:45:10-05:00", "2026-02-27T23:45:10Z"),
        ("2026-03-01 09:30:00Z", "2026-03-01T09:30:00Z"),
        ("2026-03-01T09:30Z", "2026-03-01T09:30:00Z"),
        ("2026-03-01", "2026-03-01T00:00:00Z"),
        ("1772000000", "2026-02-25T06:13:20Z"),
        ("1772100000000", "2026-02-26T10:00:00Z"),
    ]

    @Test(arguments: accepted)
    func canonical(_ c: (String, String)) {
        #expect(SourceTimestamp.canonical(c.0) == c.1)
    }

    static let refused = ["", "yesterday", "2026-13-01", "2026-03-01T09:30:00", "2026-03-01T25:00:00Z", "1969-12-31",
                          "2026-03-01T09:30:00+24:00", "2026-03-01T09:30:00Zjunk", "-5", "12.5"]

    @Test(arguments: refused)
    func notATimestamp(_ text: String) {
        #expect(SourceTimestamp.canonical(text) == nil)
    }

    @Test func unixNumbers() {
        #expect(SourceTimestamp.canonical(unix: 0) == "1970-01-01T00:00:00Z")
        #expect(SourceTimestamp.canonical(unix: 1_772_000_000.9) == "2026-02-25T06:13:20Z")
        #expect(SourceTimestamp.canonical(unix: .nan) == nil && SourceTimestamp.canonical(unix: -1) == nil)
    }
}
