import Testing
@testable import CorpusServer

/// Table-driven: Range header values against a 1000-byte file (RFC 9110 §14.1.2 examples and abuse).
struct ByteRangeTests {
    static let cases: [(String?, RangeDecision)] = [
        (nil, .full),
        ("bytes=0-499", .partial(offset: 0, length: 500)),
        ("bytes=500-999", .partial(offset: 500, length: 500)),
        ("bytes=500-5000", .partial(offset: 500, length: 500)),       // end clamps to the file
        ("bytes=900-", .partial(offset: 900, length: 100)),
        ("bytes=-100", .partial(offset: 900, length: 100)),           // suffix
        ("bytes=-5000", .partial(offset: 0, length: 1000)),           // suffix longer than the file
        ("bytes=999-999", .partial(offset: 999, length: 1)),
        ("BYTES=0-0", .partial(offset: 0, length: 1)),
        ("bytes= 10-19 ", .partial(offset: 10, length: 10)),
        ("bytes=0-99999999999999999999999", .partial(offset: 0, length: 1000)),  // overflow clamps
        ("bytes=1000-", .unsatisfiable),
        ("bytes=1000-2000", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=99999999999999999999-", .unsatisfiable),
        // Several ranges: the whole file with 200, never multipart (CVE-2011-3192).
        ("bytes=0-1,5-9", .full),
        ("bytes=0-,0-,0-,0-,0-", .full),
        ("bytes=0-1,", .full),
        // Malformed: ignored.
        ("bytes=", .full), ("bytes=abc", .full), ("bytes=5-3", .full), ("bytes=--5", .full), ("bytes=1-2-3", .full),
        ("items=0-5", .full), ("bytes 0-5", .full), ("bytes=0x10-", .full), ("bytes=+5-", .full),
    ]

    @Test(arguments: cases)
    func decides(_ header: String?, _ expected: RangeDecision) {
        #expect(RangeDecision.parse(header, size: 1000) == expected)
    }

    @Test func emptyFileSatisfiesNoRange() {
        #expect(RangeDecision.parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(RangeDecision.parse("bytes=-1", size: 0) == .unsatisfiable)
    }

    @Test func httpDatesRoundTrip() {
        #expect(HTTPDate.format(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777)
        // RFC 9110 §5.6.7: a recipient must accept the two obsolete forms as well.
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784111777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(HTTPDate.parse("garbage") == nil)
    }
}

/// Table-driven: Authorization header values and the bearer token they carry.
struct BearerHeaderTests {
    static let cases: [(String?, String?)] = [
        (nil, nil), ("", nil), ("Bearer", nil), ("Bearer ", nil), ("Bearer  ", nil),
        ("Bearer abc.def.ghi", "abc.def.ghi"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("  Bearer   abc  ", "abc"),
        ("Bearer\tabc", "abc"), ("Bearerabc", nil), ("Basic dXNlcjpwYXNz", nil), ("Bearer a b", nil), ("Token abc", nil),
    ]

    @Test(arguments: cases)
    func extractsTheToken(_ header: String?, _ token: String?) {
        #expect(Gatekeeper.bearer(header) == token)
    }
}
