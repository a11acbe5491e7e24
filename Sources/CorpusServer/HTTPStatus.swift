/// A response status this server sends, with its reason phrase (RFC 9110 §15). libmicrohttpd
/// writes the status line itself from the code; the phrases here are the ones it writes.
struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    let code: Int
    let reasonPhrase: String

    private init(_ code: Int, _ reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    static let ok = HTTPStatus(200, "OK")
    static let noContent = HTTPStatus(204, "No Content")
    static let partialContent = HTTPStatus(206, "Partial Content")
    static let found = HTTPStatus(302, "Found")
    static let notModified = HTTPStatus(304, "Not Modified")
    static let badRequest = HTTPStatus(400, "Bad Request")
    static let unauthorized = HTTPStatus(401, "Unauthorized")
    static let forbidden = HTTPStatus(403, "Forbidden")
    static let notFound = HTTPStatus(404, "Not Found")
    static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
    static let rangeNotSatisfiable = HTTPStatus(416, "Range Not Satisfiable")
    static let internalServerError = HTTPStatus(500, "Internal Server Error")

    /// Every status the handler answers with.
    static let all: [HTTPStatus] = [.ok, .noContent, .partialContent, .found, .notModified, .badRequest, .unauthorized, .forbidden,
                                    .notFound, .methodNotAllowed, .preconditionFailed, .rangeNotSatisfiable, .internalServerError]

    /// `404 Not Found`.
    var description: String { "\(code) \(reasonPhrase)" }
}
