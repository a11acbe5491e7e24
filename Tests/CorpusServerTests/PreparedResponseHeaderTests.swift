import Foundation
import Testing
@testable import CorpusServer

/// `MHD_add_response_header` refuses a field it cannot send (CR or LF in a value, a space in a
/// name, no memory). A response missing a header it was built with (`Cache-Control: private`,
/// `Content-Range`) would say something other than meant, so it is not built at all: the
/// request's connection is closed unanswered (`ServerCore.queue`).
@Suite struct PreparedResponseHeaderTests {
    @Test func aHeaderLibmicrohttpdRefusesLeavesNoResponse() {
        var response = HTTPResponse.text(.ok, "x")
        response.headers.append((.cacheControl, "private\r\nX-Injected: yes"))
        #expect(PreparedResponse(response, close: false) == nil)
        var badName = HTTPResponse.text(.ok, "x")
        badName.headers.append((HTTPHeaderName("X Spaced"), "v"))
        #expect(PreparedResponse(badName, close: false) == nil)
    }

    @Test func theHeadersOfAResponseAreAllAdded() {
        var response = HTTPResponse.text(.ok, "x")
        response.headers.append((.etag, "\"abc\""))
        #expect(PreparedResponse(response, close: true) != nil)
    }
}
