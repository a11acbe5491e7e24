import Foundation
import CorpusFormat

/// One GET of a remote's JSON endpoint (`/v1/search`, `/v1/documents`, `/v1/read`), its refusals
/// read as the client's errors: 401 needs a token, 403 the token does not cover it, 404 the remote
/// does not serve it; an answer that does not decode as `T` is malformed.
struct RemoteEndpoint {
    let remote: Remote
    let token: String?
    let configuration: HTTPClientConfiguration

    /// `<remote URL>/v1/<path>?<query>`, each value percent-encoded.
    func url(_ path: String, _ query: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let parts = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        let base = remote.url.hasSuffix("/") ? String(remote.url.dropLast()) : remote.url
        return "\(base)/v1/\(path)?" + parts.joined(separator: "&")
    }

    /// GETs `url` and decodes its body as `T`; `what` names the request in errors ("search on
    /// main"), `missing` says what a 404 means.
    func get<T: Decodable>(_ url: String, as: T.Type, what: String, missing: String, maxBodyBytes: Int64) async throws -> T {
        let http = try HTTPClient(configuration: configuration)
        let response: HTTPResponse
        do {
            response = try await http.get(HTTPRequest(url: url, bearerToken: token, maxBodyBytes: maxBodyBytes))
        } catch let TransportError.httpStatus(code) {
            switch code {
            case 401: throw SyncError.entitlementRequired(file: what)
            case 403: throw SyncError.entitlementDenied(file: what)
            case 404: throw SyncError.notFound(file: "\(what) (\(missing))")
            default: throw SyncError.network(after: 1, last: .httpStatus(code: code))
            }
        } catch let e as TransportError {
            throw SyncError.from(transport: e, attempts: 1)
        }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw SyncError.malformed(what: what, reason: "the answer is not a \(String(describing: T.self)) object")
        }
    }
}
