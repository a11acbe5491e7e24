package import CCurl

/// A libcurl option this project sets, with its name and the first libcurl release that has it
/// (curl's docs/libcurl/symbols-in-versions, and the option's own man page), so that a libcurl
/// that refuses it is named in the error with the release to install (`CurlOptionError`).
package struct CurlOption: Sendable {
    package let raw: UInt32
    package let name: String
    /// `LIBCURL_VERSION_NUM` of the release that added the option (0x075500 is 7.85.0); nil when
    /// not known.
    package let since: UInt32?

    package init(_ option: CURLoption, _ name: String, since: UInt32?) {
        raw = option.rawValue
        self.name = name
        self.since = since
    }

    var value: CURLoption { CURLoption(rawValue: raw) }

    /// `7.85.0` for 0x075500.
    static func versionText(_ number: UInt32) -> String { "\(number >> 16).\((number >> 8) & 0xff).\(number & 0xff)" }

    // Every option the client and the object store set. The newest, CURLOPT_PROTOCOLS_STR, makes
    // 7.85.0 the oldest libcurl this code runs with (`CurlOptionError.minimumLibcurlVersion`).
    package static let url = CurlOption(CURLOPT_URL, "CURLOPT_URL", since: 0x070100)
    package static let protocols = CurlOption(CURLOPT_PROTOCOLS_STR, "CURLOPT_PROTOCOLS_STR", since: 0x075500)
    package static let followLocation = CurlOption(CURLOPT_FOLLOWLOCATION, "CURLOPT_FOLLOWLOCATION", since: 0x070100)
    package static let noSignal = CurlOption(CURLOPT_NOSIGNAL, "CURLOPT_NOSIGNAL", since: 0x070a00)
    package static let connectTimeoutMS = CurlOption(CURLOPT_CONNECTTIMEOUT_MS, "CURLOPT_CONNECTTIMEOUT_MS", since: 0x071002)
    package static let userAgent = CurlOption(CURLOPT_USERAGENT, "CURLOPT_USERAGENT", since: 0x070100)
    package static let caInfo = CurlOption(CURLOPT_CAINFO, "CURLOPT_CAINFO", since: 0x070402)
    package static let httpHeader = CurlOption(CURLOPT_HTTPHEADER, "CURLOPT_HTTPHEADER", since: 0x070100)
    package static let headerFunction = CurlOption(CURLOPT_HEADERFUNCTION, "CURLOPT_HEADERFUNCTION", since: 0x070702)
    package static let headerData = CurlOption(CURLOPT_HEADERDATA, "CURLOPT_HEADERDATA", since: 0x070a00)
    package static let writeFunction = CurlOption(CURLOPT_WRITEFUNCTION, "CURLOPT_WRITEFUNCTION", since: 0x070100)
    package static let writeData = CurlOption(CURLOPT_WRITEDATA, "CURLOPT_WRITEDATA", since: 0x070907)
    package static let readFunction = CurlOption(CURLOPT_READFUNCTION, "CURLOPT_READFUNCTION", since: 0x070100)
    package static let readData = CurlOption(CURLOPT_READDATA, "CURLOPT_READDATA", since: 0x070907)
    package static let noProgress = CurlOption(CURLOPT_NOPROGRESS, "CURLOPT_NOPROGRESS", since: 0x070100)
    package static let xferInfoFunction = CurlOption(CURLOPT_XFERINFOFUNCTION, "CURLOPT_XFERINFOFUNCTION", since: 0x072000)
    package static let xferInfoData = CurlOption(CURLOPT_XFERINFODATA, "CURLOPT_XFERINFODATA", since: 0x072000)
    package static let errorBuffer = CurlOption(CURLOPT_ERRORBUFFER, "CURLOPT_ERRORBUFFER", since: 0x070100)
    package static let lowSpeedLimit = CurlOption(CURLOPT_LOW_SPEED_LIMIT, "CURLOPT_LOW_SPEED_LIMIT", since: 0x070100)
    package static let lowSpeedTime = CurlOption(CURLOPT_LOW_SPEED_TIME, "CURLOPT_LOW_SPEED_TIME", since: 0x070100)
    package static let awsSigV4 = CurlOption(CURLOPT_AWS_SIGV4, "CURLOPT_AWS_SIGV4", since: 0x074b00)
    package static let userName = CurlOption(CURLOPT_USERNAME, "CURLOPT_USERNAME", since: 0x071301)
    package static let password = CurlOption(CURLOPT_PASSWORD, "CURLOPT_PASSWORD", since: 0x071301)
    package static let noBody = CurlOption(CURLOPT_NOBODY, "CURLOPT_NOBODY", since: 0x070100)
    package static let customRequest = CurlOption(CURLOPT_CUSTOMREQUEST, "CURLOPT_CUSTOMREQUEST", since: 0x070100)
    package static let upload = CurlOption(CURLOPT_UPLOAD, "CURLOPT_UPLOAD", since: 0x070100)
    package static let inFileSizeLarge = CurlOption(CURLOPT_INFILESIZE_LARGE, "CURLOPT_INFILESIZE_LARGE", since: 0x070b00)
}
