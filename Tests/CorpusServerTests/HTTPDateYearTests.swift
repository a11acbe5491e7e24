import Foundation
import Testing
@testable import CorpusServer

/// HTTP-dates carry a four-digit year (RFC 9110 §5.6.7: `year = 4DIGIT`), both ways. Found by the
/// `RequestHead` fuzz target (docs/fuzzing.md): `If-Modified-Since: Sun, 06 Nov 0997 08:49:37 GMT`
/// parsed, but `format` wrote that instant back as `… 997 …`, which no reader (this one included)
/// takes for a date; and signed fields such as `+6` or `-001` were read as numbers.
@Suite struct HTTPDateYearTests {
    @Test(arguments: ["Sun, 06 Nov 0997 08:49:37 GMT", "Sat, 01 Jan 0000 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func fourDigitYearsRoundTrip(_ text: String) throws {
        let seconds = try #require(HTTPDate.parse(text))
        let written = HTTPDate.format(seconds)
        #expect(written.split(separator: " ")[3].count == 4, "\(written)")
        #expect(HTTPDate.parse(written) == seconds)
    }

    @Test func yearsPastTheFormatAreWrittenAsItsLastSecond() {
        // 10000-01-01T00:00:00Z, and a time far beyond: an IMF-fixdate cannot say either.
        #expect(HTTPDate.format(253_402_300_800) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.format(Int64(Int32.max) * 1000) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test(arguments: ["Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov -994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 08:+9:37 GMT", "Sunday, +6-Nov-94 08:49:37 GMT", "Sun Nov +6 08:49:37 1994"])
    func signedFieldsAreNoDate(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
