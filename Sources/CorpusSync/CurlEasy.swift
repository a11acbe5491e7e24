import Foundation
internal import CCurl

/// Owns one libcurl easy handle (`curl_easy_init` / `curl_easy_cleanup`).
///
/// Not thread-safe: `HTTPClient` uses it under its lock. Reusing one handle keeps
/// connections and TLS sessions alive between requests to the same host.
final class CurlEasy {
    /// `curl_global_init` is not thread-safe and must run once before any handle exists;
    /// a static `let` is initialised exactly once, under a lock.
    private static let globalInit: CURLcode = curl_global_init(3) // CURL_GLOBAL_ALL (a macro Swift cannot import)

    let handle: UnsafeMutableRawPointer

    init() throws(TransportError) {
        guard Self.globalInit == CURLE_OK else { throw .network(reason: "libcurl failed to initialise") }
        guard let h = curl_easy_init() else { throw .network(reason: "libcurl could not create a handle") }
        handle = h
    }

    deinit { curl_easy_cleanup(handle) }

    func reset() { curl_easy_reset(handle) }

    func set(_ option: CURLoption, _ value: Int) { _ = ccurl_setopt_long(handle, option, value) }
    func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options (since 7.17), so a temporary C string is enough.
        _ = value.withCString { ccurl_setopt_ptr(handle, option, $0) }
    }
    func set(_ option: CURLoption, pointer: UnsafeRawPointer?) { _ = ccurl_setopt_ptr(handle, option, pointer) }
    func set(_ option: CURLoption, write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int) {
        _ = ccurl_setopt_write(handle, option, write)
    }
    func set(_ option: CURLoption, xferinfo: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32) {
        _ = ccurl_setopt_xferinfo(handle, option, xferinfo)
    }

    func perform() -> CURLcode { curl_easy_perform(handle) }

    var responseCode: Int {
        var v = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &v)
        return v
    }

    static func describe(_ code: CURLcode) -> String { String(cString: curl_easy_strerror(code)) }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}

/// A `curl_slist` of request headers, freed with `curl_slist_free_all`.
final class CurlHeaderList {
    private(set) var list: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        for line in lines { list = curl_slist_append(list, line) }
    }

    deinit { curl_slist_free_all(list) }
}

@available(*, unavailable)
extension CurlHeaderList: Sendable {}
