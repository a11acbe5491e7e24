import Foundation
import Testing
import CorpusFormat
import CorpusTestSupport
@testable import CorpusServer

/// `/_auth` answers for one path; a request naming two (the same mistake as two Host or two
/// Authorization headers: which one does the asker mean?) is refused instead of answered for the first.
@Suite struct AuthEndpointAmbiguityTests {
    @Test func twoPathParametersAreRefused() throws {
        let f = try ServerFixture()
        let free = f.bundle("free-guide"), paid = f.bundle("paid-atlas")
        let r = try f.get("/_auth?path=\(free)&path=\(paid)")
        #expect(r.status == 400, "\(r.text)")
        #expect(r.text.contains("more than one path"), "\(r.text)")
        #expect(try f.get("/_auth?path=\(paid)&path=\(free)").status == 400)
        // One is answered as before.
        #expect(try f.get("/_auth?path=\(free)").status == 204)
        #expect(try f.get("/_auth?path=\(paid)").status == 401)
    }
}
