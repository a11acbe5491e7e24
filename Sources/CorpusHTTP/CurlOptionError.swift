/// libcurl refused an option a request needs, so the request was not made.
///
/// libcurl is loaded at run time (`dlopen`, CCurl/shim.h), so the one a machine has may be older
/// than the options this code sets, or built without some. `curl_easy_setopt` then answers
/// `CURLE_UNKNOWN_OPTION` or `CURLE_NOT_BUILT_IN` and changes nothing: a request made anyway
/// would go out without what the option promised (an S3 request unsigned, any protocol libcurl
/// speaks allowed). Every result is checked (`CorpusCurl.CurlEasy`), and a refusal stops the
/// request with this error. It lives here, beside `TransportError`, because both the client's
/// errors (`SyncError.httpLibrary`) and the object store's (`ObjectStoreError.httpLibrary`) carry it.
public struct CurlOptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why libcurl refused.
    public enum Refusal: Equatable, Sendable {
        /// The option is newer than this libcurl (`CURLE_UNKNOWN_OPTION`); `minimum` is the first
        /// release that has it, when known.
        case tooOld(minimum: String?)
        /// This libcurl is recent enough but was built without the option's feature
        /// (`CURLE_NOT_BUILT_IN`, or `CURLE_UNKNOWN_OPTION` from a release that has it).
        case notBuiltIn
        /// Any other refusal (a value it does not accept, no memory): libcurl's own words.
        case refused(reason: String)
    }

    /// The option's name (`CURLOPT_AWS_SIGV4`), or `option N` for a number without one.
    public let option: String
    /// The version of the libcurl that was loaded (`7.88.1`).
    public let libcurlVersion: String
    public let refusal: Refusal

    /// The oldest libcurl that has every option this code sets: the release of the newest of
    /// them, `CURLOPT_PROTOCOLS_STR` (`CorpusCurl.CurlOption` lists them with their releases).
    public static let minimumLibcurlVersion = "7.85.0"

    public init(option: String, libcurlVersion: String, refusal: Refusal) {
        self.option = option
        self.libcurlVersion = libcurlVersion
        self.refusal = refusal
    }

    public var description: String {
        switch refusal {
        case let .tooOld(minimum?):
            return "libcurl \(libcurlVersion) does not support \(option); install libcurl \(minimum) or newer"
        case .tooOld(nil):
            return "libcurl \(libcurlVersion) does not support \(option)"
        case .notBuiltIn:
            return "libcurl \(libcurlVersion) was built without \(option); install a libcurl built with it (Debian's libcurl4)"
        case let .refused(reason):
            return "libcurl \(libcurlVersion) refused \(option): \(reason)"
        }
    }
}
