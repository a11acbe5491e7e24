/// Where one request is in its life on a connection, as libmicrohttpd's callbacks report it: the
/// URI log callback starts it (`receivingHead`); the access handler is called once when the head
/// is in (checked: `headAccepted`, or refused: `responding`) and again when the request is
/// complete (`responding`); libmicrohttpd then sends the response, streaming a file body from its
/// descriptor, and the completion callback ends the request, completed or aborted (`Outcome`).
enum RequestState {
    /// The request line is in; the rest of the head is still arriving.
    case receivingHead
    /// The head passed every check; the answer waits for libmicrohttpd's call saying the request is complete.
    case headAccepted(HTTPRequest)
    /// libmicrohttpd took the response and sends it.
    case responding(Answer)
    /// A response was decided but libmicrohttpd did not take it (it could not be built or queued).
    case unsent(Answer)

    /// What was answered, as the metrics and the access log record it.
    struct Answer {
        let method: HTTPMethod
        let status: HTTPStatus
        /// Body bytes the response sends in full (0 for HEAD).
        let bodyLength: Int64
        /// The entitlement gate refused the request.
        let gatedRefusal: Bool
    }

    /// How a request ended, from its state when libmicrohttpd reported it finished.
    enum Outcome {
        /// The whole response was sent.
        case completed(Answer)
        /// The connection ended before the response was sent in full, or libmicrohttpd never took it.
        case aborted(Answer, queued: Bool)
        /// No response was decided: the client left, or libmicrohttpd refused the head itself (431).
        case unanswered(HTTPMethod?)

        var method: HTTPMethod? {
            switch self {
            case let .completed(a), let .aborted(a, _): return a.method
            case let .unanswered(method): return method
            }
        }

        var status: HTTPStatus? {
            switch self {
            case let .completed(a), let .aborted(a, _): return a.status
            case .unanswered: return nil
            }
        }

        /// Body bytes sent: all of them, or none counted when the response did not complete.
        var bytesSent: Int64 {
            if case let .completed(a) = self { return a.bodyLength }
            return 0
        }
    }

    /// The outcome when libmicrohttpd reports the request finished; `completed` is its verdict
    /// (`MHD_REQUEST_TERMINATED_COMPLETED_OK`).
    func outcome(completed: Bool) -> Outcome {
        switch self {
        case .receivingHead: return .unanswered(nil)
        case let .headAccepted(request): return .unanswered(request.method)
        case let .responding(answer): return completed ? .completed(answer) : .aborted(answer, queued: true)
        case let .unsent(answer): return .aborted(answer, queued: false)
        }
    }
}
