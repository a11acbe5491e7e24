import Foundation
internal import CCurl
package import CorpusHTTP

/// What every request of this project asks of libcurl, the client's and the object store's alike.
package struct CurlRequest {
    package var url: String
    /// `Name: value` lines, already checked (`RequestFieldCheck`).
    package var headerLines: [String]
    package var userAgent: String
    /// Seconds to connect (TCP and TLS).
    package var connectTimeout: Double
    /// The length of the body `CurlTransferHandler.read` gives (an upload, `CURLOPT_UPLOAD`); nil
    /// for a request without a body.
    package var uploadLength: Int64?
    /// Whether `CurlTransferHandler.progress` is called (`CURLOPT_XFERINFOFUNCTION`).
    package var reportsProgress = false

    package init(url: String, headerLines: [String], userAgent: String, connectTimeout: Double,
                 uploadLength: Int64? = nil, reportsProgress: Bool = false) {
        self.url = url
        self.headerLines = headerLines
        self.userAgent = userAgent
        self.connectTimeout = connectTimeout
        self.uploadLength = uploadLength
        self.reportsProgress = reportsProgress
    }
}

/// The side of one transfer that libcurl's callbacks reach. Called on the thread that runs it.
package protocol CurlTransferHandler: AnyObject {
    /// One raw response header line (status lines included: libcurl's header callback).
    func header(_ line: String)
    /// A chunk of the response body; false stops the transfer (`CURLE_WRITE_ERROR`).
    func body(_ chunk: UnsafeRawBufferPointer) -> Bool
    /// Fills `buffer` with the next bytes of the request body: their count, 0 at the end, or
    /// `CurlEasy.readAbort` to stop the transfer. Only for a request with `uploadLength`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Bytes of the body so far; false stops the transfer. Only with `reportsProgress`.
    func progress(downloaded: Int64) -> Bool
}

extension CurlTransferHandler {
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> Int { 0 }
    package func progress(downloaded: Int64) -> Bool { true }
}

/// How a transfer libcurl ran ended.
package enum CurlOutcome: Equatable {
    /// A response arrived (its status; the head and body went to the handler).
    case completed(status: Int)
    /// No complete response: libcurl's message (its error buffer, else its code's text).
    case failed(code: UInt32, reason: String)
}

extension CurlEasy {
    /// What a read callback returns to abort the transfer (`CURL_READFUNC_ABORT`, a macro).
    package static let readAbort = 0x1000_0000

    /// One request on this handle: its options reset, then what every request of this project
    /// sets (only http and https; no redirect followed, the client decides; no signals; the
    /// connect timeout, user agent and header lines), the handler's callbacks, then the caller's
    /// own options (`configure`), then `curl_easy_perform`.
    ///
    /// Throws, before anything is sent, when libcurl refuses an option.
    package func transfer(_ request: CurlRequest, handler: any CurlTransferHandler,
                          configure: (CurlEasy) throws(CurlOptionError) -> Void = { _ in }) throws(CurlOptionError) -> CurlOutcome {
        let lines = try CurlHeaderList(request.headerLines)
        reset()
        try set(.url, request.url)
        try set(.protocols, "http,https")
        try set(.followLocation, 0)
        try set(.noSignal, 1)
        // CURLOPT_HTTP_VERSION is left at libcurl's default, CURL_HTTP_VERSION_2TLS since 7.62
        // (HTTP/2 where TLS offers it): setting it would make a libcurl built without HTTP/2
        // refuse (CURLE_UNSUPPORTED_PROTOCOL) what HTTP/1.1 does as well.
        try set(.connectTimeoutMS, Int(request.connectTimeout * 1000))
        try set(.userAgent, request.userAgent)
        try set(.httpHeader, pointer: UnsafeRawPointer(lines.list))

        // The handler is retained for exactly the duration of curl_easy_perform and released once.
        let unmanaged = Unmanaged.passRetained(CurlCallbackTarget(handler))
        defer { unmanaged.release() }
        let opaque = UnsafeRawPointer(unmanaged.toOpaque())
        try set(.headerFunction, write: curlHeaderCallback)
        try set(.headerData, pointer: opaque)
        try set(.writeFunction, write: curlWriteCallback)
        try set(.writeData, pointer: opaque)
        if let length = request.uploadLength {
            try set(.upload, 1)
            try set(.inFileSizeLarge, offset: length)
            try set(.readFunction, write: curlReadCallback)
            try set(.readData, pointer: opaque)
        }
        if request.reportsProgress {
            try set(.noProgress, 0)
            try set(.xferInfoFunction, xferinfo: curlProgressCallback)
            try set(.xferInfoData, pointer: opaque)
        }
        try configure(self)

        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256) // CURL_ERROR_SIZE
        defer { errorBuffer.deallocate() }
        errorBuffer.initialize(repeating: 0, count: 256)
        try set(.errorBuffer, pointer: UnsafeRawPointer(errorBuffer))
        let code = perform()
        // libcurl must not keep a pointer to freed memory past this call.
        try set(.errorBuffer, pointer: nil)
        withExtendedLifetime(lines) {} // libcurl reads the list during perform
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            return .failed(code: code.rawValue, reason: detail.isEmpty ? Self.describe(code) : detail)
        }
        return .completed(status: try responseCode())
    }
}

/// What the C callbacks receive as their context: a class, so that `Unmanaged` can carry it.
private final class CurlCallbackTarget {
    let handler: any CurlTransferHandler
    init(_ handler: any CurlTransferHandler) { self.handler = handler }

    static func from(_ p: UnsafeMutableRawPointer?) -> any CurlTransferHandler {
        Unmanaged<CurlCallbackTarget>.fromOpaque(p!).takeUnretainedValue().handler
    }
}

private let curlHeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data else { return n }
    CurlCallbackTarget.from(ctx).header(String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self))
    return n
}

private let curlWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data, n > 0 else { return n }
    // Returning anything but n makes libcurl fail the transfer with CURLE_WRITE_ERROR.
    return CurlCallbackTarget.from(ctx).body(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private let curlReadCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    guard let data else { return 0 }
    return CurlCallbackTarget.from(ctx).read(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

private let curlProgressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { ctx, _, downloaded, _, _ in
    CurlCallbackTarget.from(ctx).progress(downloaded: Int64(downloaded)) ? 0 : 1
}
