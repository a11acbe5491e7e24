#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CCurl
internal import CorpusCurl

/// The libcurl side of `HTTPTransport`: one easy handle, reused, so connections and TLS sessions
/// stay alive between requests. TLS verification stays on (libcurl's default), proxy environment
/// variables are honoured (libcurl's default), HTTP/2 is used where TLS offers it; libcurl's own
/// redirect following is off. Not thread-safe: `HTTPClient` calls it under its lock.
final class CurlTransport: HTTPTransport {
    static let factory = HTTPTransportFactory(name: "curl") { try CurlTransport($0) }

    private let easy: CurlEasy
    private let configuration: HTTPClientConfiguration

    init(_ configuration: HTTPClientConfiguration) throws {
        self.configuration = configuration
        do { self.easy = try CurlEasy() } catch {
            switch error {
            case .libraryMissing: throw TransportError.network(reason: "libcurl could not be loaded (install Debian's libcurl4)")
            case .globalInitFailed: throw TransportError.network(reason: "libcurl failed to initialise")
            case .noHandle: throw TransportError.network(reason: "libcurl could not create a handle")
            }
        }
    }

    func transfer(url: String, headers: [(name: String, value: String)], state: TransferState) throws -> HTTPHop {
        let lines = CurlHeaderList(headers.map { "\($0.name): \($0.value)" })
        var errorBuffer = [CChar](repeating: 0, count: 256) // CURL_ERROR_SIZE

        easy.reset()
        easy.set(CURLOPT_URL, url)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 0)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        if let ca = configuration.caBundle { easy.set(CURLOPT_CAINFO, ca) }
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(lines.list))
        easy.set(CURLOPT_HEADERFUNCTION, write: headerCallback)
        easy.set(CURLOPT_WRITEFUNCTION, write: writeCallback)
        easy.set(CURLOPT_NOPROGRESS, 0)
        easy.set(CURLOPT_XFERINFOFUNCTION, xferinfo: progressCallback)

        // The state is retained for exactly the duration of curl_easy_perform and released once.
        let unmanaged = Unmanaged.passRetained(state)
        defer { unmanaged.release() }
        let opaque = UnsafeRawPointer(unmanaged.toOpaque())
        easy.set(CURLOPT_HEADERDATA, pointer: opaque)
        easy.set(CURLOPT_WRITEDATA, pointer: opaque)
        easy.set(CURLOPT_XFERINFODATA, pointer: opaque)

        let code = errorBuffer.withUnsafeMutableBufferPointer { buf -> CURLcode in
            easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(buf.baseAddress))
            defer { easy.set(CURLOPT_ERRORBUFFER, pointer: nil) }
            return easy.perform()
        }
        withExtendedLifetime(lines) {}
        return try state.finish(transportError: code == CURLE_OK ? nil : {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return TransportError.network(reason: detail.isEmpty ? CurlEasy.describe(code) : detail)
        }())
    }
}

extension HTTPTransportFactory {
    /// libcurl, loaded at the first request: Linux's default.
    public static var curl: HTTPTransportFactory { CurlTransport.factory }
}

private func transferState(_ p: UnsafeMutableRawPointer?) -> TransferState {
    Unmanaged<TransferState>.fromOpaque(p!).takeUnretainedValue()
}

private let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data else { return n }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
    transferState(ctx).header(line)
    return n
}

private let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, ctx in
    let n = size * count
    guard let data, n > 0 else { return n }
    // Returning anything but n makes libcurl fail the transfer with CURLE_WRITE_ERROR.
    return transferState(ctx).body(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
}

private let progressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { ctx, _, downloaded, _, _ in
    transferState(ctx).progress(downloaded: Int64(downloaded)) ? 0 : 1
}
#endif
