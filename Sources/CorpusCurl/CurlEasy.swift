import Foundation
package import CCurl
package import CorpusHTTP

/// Owns one libcurl easy handle (`curl_easy_init` / `curl_easy_cleanup`): the one wrapper of the
/// handle that the client's HTTP (`CorpusSync.CurlTransport`) and the object store's S3 requests
/// (`CorpusObjectStore.S3Connection`) both use, so `curl_global_init` has one caller and every
/// `curl_easy_setopt` result is checked in one place.
///
/// Not thread-safe: each owner uses it under its own lock. Reusing one handle keeps
/// connections and TLS sessions alive between requests to the same host.
package final class CurlEasy {
    /// `curl_global_init` is not thread-safe and must run once before any handle exists;
    /// a static `let` is initialised exactly once, under a lock.
    private static let globalInit: CURLcode = ccurl_global_init(3) // CURL_GLOBAL_ALL (a macro Swift cannot import)

    let handle: UnsafeMutableRawPointer

    /// Each owner maps the failure to its own domain's error.
    package init() throws(CurlInitError) {
        // libcurl is loaded here, at the first handle, not when the process starts (CCurl/shim.h).
        guard ccurl_load() == 1 else { throw .libraryMissing }
        guard Self.globalInit == CURLE_OK else { throw .globalInitFailed }
        guard let h = ccurl_easy_init() else { throw .noHandle }
        handle = h
    }

    deinit { ccurl_easy_cleanup(handle) }

    /// Every option back to its default (`curl_easy_reset`); connections and caches are kept.
    package func reset() { ccurl_easy_reset(handle) }

    // `curl_easy_setopt`, one wrapper per argument type (the C function is variadic). Each throws
    // when libcurl refuses: an option it ignored would leave the request other than meant.

    package func set(_ option: CurlOption, _ value: Int) throws(CurlOptionError) {
        try check(ccurl_setopt_long(handle, option.value, value), option)
    }

    package func set(_ option: CurlOption, _ value: String) throws(CurlOptionError) {
        // libcurl copies string options (since 7.17), so a temporary C string is enough.
        try check(value.withCString { ccurl_setopt_ptr(handle, option.value, $0) }, option)
    }

    package func set(_ option: CurlOption, offset: Int64) throws(CurlOptionError) {
        try check(ccurl_setopt_off(handle, option.value, curl_off_t(offset)), option)
    }

    package func set(_ option: CurlOption, pointer: UnsafeRawPointer?) throws(CurlOptionError) {
        try check(ccurl_setopt_ptr(handle, option.value, pointer), option)
    }

    /// The write, header and read callbacks share this C signature.
    package func set(_ option: CurlOption, write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int) throws(CurlOptionError) {
        try check(ccurl_setopt_write(handle, option.value, write), option)
    }

    package func set(_ option: CurlOption, xferinfo: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32) throws(CurlOptionError) {
        try check(ccurl_setopt_xferinfo(handle, option.value, xferinfo), option)
    }

    /// `curl_easy_perform`: runs the transfer the options describe.
    package func perform() -> CURLcode { ccurl_easy_perform(handle) }

    /// The last response's status (`CURLINFO_RESPONSE_CODE`, libcurl 7.10.8).
    package func responseCode() throws(CurlOptionError) -> Int {
        var v = 0
        try check(ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &v), name: "CURLINFO_RESPONSE_CODE", since: 0x070a08)
        return v
    }

    package static func describe(_ code: CURLcode) -> String { String(cString: ccurl_easy_strerror(code)) }

    /// The loaded libcurl's version (`curl_version_info`).
    package static var version: (text: String, number: UInt32) { (String(cString: ccurl_version()), ccurl_version_num()) }

    /// Turns a refused option into the error that names it, and the release that has it.
    func check(_ code: CURLcode, _ option: CurlOption) throws(CurlOptionError) {
        try check(code, name: option.name, since: option.since)
    }

    func check(_ code: CURLcode, name: String, since: UInt32?) throws(CurlOptionError) {
        guard code != CURLE_OK else { return }
        let (text, number) = Self.version
        let refusal: CurlOptionError.Refusal
        switch code {
        case CURLE_UNKNOWN_OPTION where since.map({ number < $0 }) ?? true:
            refusal = .tooOld(minimum: since.map(CurlOption.versionText))
        case CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN:
            refusal = .notBuiltIn
        default:
            refusal = .refused(reason: Self.describe(code))
        }
        throw CurlOptionError(option: name, libcurlVersion: text, refusal: refusal)
    }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}

/// Why a handle could not be made.
package enum CurlInitError: Error {
    /// `dlopen` found no libcurl (Debian's libcurl4).
    case libraryMissing
    case globalInitFailed
    case noHandle

    /// The reason each owner reports.
    package var reason: String {
        switch self {
        case .libraryMissing: return "libcurl could not be loaded (install Debian's libcurl4)"
        case .globalInitFailed: return "libcurl failed to initialise"
        case .noHandle: return "libcurl could not create a handle"
        }
    }
}

/// A `curl_slist` of request headers, freed with `curl_slist_free_all`.
package final class CurlHeaderList {
    package private(set) var list: UnsafeMutablePointer<curl_slist>?

    /// Throws when `curl_slist_append` fails (no memory): a request must not go out without some
    /// of its headers (the token among them).
    package init(_ lines: [String]) throws(CurlOptionError) {
        for line in lines {
            guard let longer = ccurl_slist_append(list, line) else {
                throw CurlOptionError(option: CurlOption.httpHeader.name, libcurlVersion: CurlEasy.version.text,
                                      refusal: .refused(reason: "curl_slist_append failed (out of memory)"))
            }
            list = longer
        }
    }

    deinit { ccurl_slist_free_all(list) }
}

@available(*, unavailable)
extension CurlHeaderList: Sendable {}
