import Testing
@testable import CorpusServer

/// How a request's state, when libmicrohttpd reports it finished, becomes what the metrics and the
/// access log record; no I/O.
@Suite struct RequestStateTests {
    static let answer = RequestState.Answer(method: .get, status: .ok, bodyLength: 512, gatedRefusal: false)

    // (state, libmicrohttpd's verdict, method logged, status logged, bytes counted, response counted in flight)
    static let cases: [(String, RequestState, Bool, HTTPMethod?, HTTPStatus?, Int64, Bool?)] = [
        ("head still arriving", .receivingHead, false, nil, nil, 0, nil),
        ("head accepted, client left", .headAccepted(HTTPRequest(method: .head, rawTarget: "/", headers: [])), false, .head, nil, 0, nil),
        ("response sent in full", .responding(answer), true, .get, .ok, 512, true),
        ("response cut off", .responding(answer), false, .get, .ok, 0, true),
        ("response never taken", .unsent(answer), true, .get, .ok, 0, false),
    ]

    @Test func outcomes() {
        for (name, state, completed, method, status, bytes, queued) in Self.cases {
            let outcome = state.outcome(completed: completed)
            #expect(outcome.method == method, "\(name)")
            #expect(outcome.status == status, "\(name)")
            #expect(outcome.bytesSent == bytes, "\(name)")
            switch outcome {
            case .completed: #expect(queued == true && completed, "\(name)")
            case let .aborted(_, q): #expect(queued == q, "\(name)")
            case .unanswered: #expect(queued == nil, "\(name)")
            }
        }
    }
}
