import Foundation
import Testing
import CorpusCurl
import CorpusHTTP

/// Every `curl_easy_setopt` goes through `CurlEasy.set`, which turns libcurl's refusal into a
/// `CurlOptionError` naming the option. libcurl is loaded at run time, so an older one answers
/// `CURLE_UNKNOWN_OPTION` for an option it lacks; an option number no libcurl knows provokes the
/// same answer from today's.
@Suite struct CurlOptionCheckTests {
    /// A long option (type base 0) numbered past every option libcurl has (the highest is ~330).
    static let unknown = CurlOption(.init(rawValue: 9_999), "CURLOPT_FROM_THE_FUTURE", since: 0x7f0000)

    @Test func anOptionThisLibcurlDoesNotKnowIsATypedErrorNamingIt() throws {
        let easy = try CurlEasy()
        let version = CurlEasy.version.text
        #expect(throws: CurlOptionError(option: "CURLOPT_FROM_THE_FUTURE", libcurlVersion: version, refusal: .tooOld(minimum: "127.0.0"))) {
            try easy.set(Self.unknown, 1)
        }
        let error = try #require(throws: CurlOptionError.self) { try easy.set(Self.unknown, "x") }
        #expect(error.description == "libcurl \(version) does not support CURLOPT_FROM_THE_FUTURE; install libcurl 127.0.0 or newer")
    }

    /// Known to a release this libcurl is not older than, yet refused: built without it.
    @Test func anOptionOlderThanThisLibcurlButRefusedWasLeftOutOfItsBuild() throws {
        let easy = try CurlEasy()
        let old = CurlOption(.init(rawValue: 9_999), "CURLOPT_LEFT_OUT", since: 0x070100)
        let error = try #require(throws: CurlOptionError.self) { try easy.set(old, 1) }
        #expect(error.refusal == .notBuiltIn)
        #expect(error.description.hasPrefix("libcurl \(CurlEasy.version.text) was built without CURLOPT_LEFT_OUT"))
    }

    /// The same wrapper carries a whole transfer: a refused option of the caller's stops it
    /// before `curl_easy_perform`, so nothing reaches the server (none listens on port 9).
    @Test func aRefusedOptionStopsTheTransferBeforeAnythingIsSent() throws {
        final class Sink: CurlTransferHandler {
            var lines = 0
            func header(_ line: String) { lines += 1 }
            func body(_ chunk: UnsafeRawBufferPointer) -> Bool { true }
        }
        let easy = try CurlEasy()
        let sink = Sink()
        let request = CurlRequest(url: "http://127.0.0.1:9/x", headerLines: [], userAgent: "test", connectTimeout: 1)
        let error = try #require(throws: CurlOptionError.self) {
            try easy.transfer(request, handler: sink) { easy throws(CurlOptionError) in try easy.set(Self.unknown, 1) }
        }
        #expect(error.option == "CURLOPT_FROM_THE_FUTURE")
        #expect(sink.lines == 0)
    }

    @Test func theLoadedLibcurlHasEveryOptionThisCodeSets() throws {
        #expect(CurlEasy.version.number >= 0x075500)
        #expect(CurlOptionError.minimumLibcurlVersion == "7.85.0")
    }
}
