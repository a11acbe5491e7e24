#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
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
        do { self.easy = try CurlEasy() } catch { throw TransportError.network(reason: error.reason) }
    }

    func transfer(url: String, headers: [(name: String, value: String)], state: TransferState) throws -> HTTPHop {
        let request = CurlRequest(url: url, headerLines: headers.map { "\($0.name): \($0.value)" }, userAgent: configuration.userAgent,
                                  connectTimeout: configuration.connectTimeout, reportsProgress: true)
        let outcome: CurlOutcome
        do {
            outcome = try easy.transfer(request, handler: state) { easy throws(CurlOptionError) in
                if let ca = configuration.caBundle { try easy.set(.caInfo, ca) }
            }
        } catch {
            // Nothing was sent: this libcurl cannot make the request as meant.
            throw TransportError.httpLibrary(error)
        }
        return try state.finish(transportError: {
            guard case let .failed(_, reason) = outcome else { return nil }
            return TransportError.network(reason: reason)
        }())
    }
}

/// libcurl's callbacks feed the hop's rules directly.
extension TransferState: CurlTransferHandler {}

extension HTTPTransportFactory {
    /// libcurl, loaded at the first request: Linux's default.
    public static var curl: HTTPTransportFactory { CurlTransport.factory }
}
#endif
