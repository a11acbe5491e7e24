import Foundation
package import CCurl

/// Owns one libcurl easy handle (`curl_easy_init` / `curl_easy_cleanup`): the one wrapper of the
/// handle that the client's HTTP (`CorpusSync.HTTPClient`) and the object store's S3 requests
/// (`CorpusObjectStore.S3Connection`) both use, so `curl_global_init` has one caller.
///
/// Not thread-safe: each owner uses it under its own lock. Reusing one handle keeps
/// connections and TLS sessions alive between requests to the same host.
package final class CurlEasy {
    /// `curl_global_init` is not thread-safe and must run once before any handle exists;
    /// a static `let` is initialised exactly once, under a lock.
    private static let globalInit: CURLcode = ccurl_global_init(3) // CURL_GLOBAL_ALL (a macro Swift cannot import)

    package let handle: UnsafeMutableRawPointer

    /// Each owner maps the failure to its own domain's error.
    package init() throws(CurlInitError) {
        // libcurl is loaded here, at the first handle, not when the process starts (CCurl/shim.h).
        guard ccurl_load() == 1 else { throw .libraryMissing }
        guard Self.globalInit == CURLE_OK else { throw .globalInitFailed }
        guard let h = ccurl_easy_init() else { throw .noHandle }
        handle = h
    }

    deinit { ccurl_easy_cleanup(handle) }

    package func reset() { ccurl_easy_reset(handle) }

    package func set(_ option: CURLoption, _ value: Int) { _ = ccurl_setopt_long(handle, option, value) }
    package func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options (since 7.17), so a temporary C string is enough.
        _ = value.withCString { ccurl_setopt_ptr(handle, option, $0) }
    }
    package func set(_ option: CURLoption, offset: Int64) { _ = ccurl_setopt_off(handle, option, curl_off_t(offset)) }
    package func set(_ option: CURLoption, pointer: UnsafeRawPointer?) { _ = ccurl_setopt_ptr(handle, option, pointer) }
    /// The write, header and read callbacks share this C signature.
    package func set(_ option: CURLoption, write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int) {
        _ = ccurl_setopt_write(handle, option, write)
    }
    package func set(_ option: CURLoption, xferinfo: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32) {
        _ = ccurl_setopt_xferinfo(handle, option, xferinfo)
    }

    package func perform() -> CURLcode { ccurl_easy_perform(handle) }

    package var responseCode: Int {
        var v = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &v)
        return v
    }

    package static func describe(_ code: CURLcode) -> String { String(cString: ccurl_easy_strerror(code)) }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}

/// Why a handle could not be made.
package enum CurlInitError: Error {
    /// `dlopen` found no libcurl (Debian's libcurl4).
    case libraryMissing
    case globalInitFailed
    case noHandle
}

/// A `curl_slist` of request headers, freed with `curl_slist_free_all`.
package final class CurlHeaderList {
    package private(set) var list: UnsafeMutablePointer<curl_slist>?

    package init(_ lines: [String]) {
        for line in lines { list = ccurl_slist_append(list, line) }
    }

    deinit { ccurl_slist_free_all(list) }
}

@available(*, unavailable)
extension CurlHeaderList: Sendable {}
