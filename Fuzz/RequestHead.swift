import Foundation
import CorpusFormat
@testable import CorpusServer
import CorpusTestSupport

/// The server's reading of a request head: the request-target, the header syntax rules, the
/// layout check, `Range`, the conditional headers, HTTP dates and the bearer token, through the
/// real `RequestHandler` over a real published tree (`StaticTreeFixture`, in the scratch folder).
///
/// The input is a raw request head. It is cut into the strings libmicrohttpd 0.9.75 hands over
/// (`FuzzRequestHead`): each part ends at its first NUL, CRs before LFs are dropped, values lose
/// their leading whitespace. Properties: nothing traps; a 200/206 answers only a target whose
/// decoded path is a safe tree path; a 206's Content-Range and body agree and stay in the file;
/// `RangeDecision` stays inside any size; an HTTP date that parses formats back to itself.
func fuzzRequestHead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let head = FuzzRequestHead(input.all) else { return 0 }
    let request = HTTPRequest(method: HTTPMethod(rawValue: head.method), rawTarget: head.target, version: head.version, headers: head.fields)
    _ = head.layout.refusal()
    let response = RequestHeadFixture.handler.early(request) ?? RequestHeadFixture.handler.respond(request)
    checkResponse(response, request)
    checkParsers(request, sizeSeed: input.all.count)
    return 0
}

private func checkResponse(_ r: HTTPResponse, _ req: HTTPRequest) {
    guard r.status == .ok || r.status == .partialContent else { return }
    if let target = try? RequestTarget.parse(req.rawTarget), target.segments != ["healthz"], target.segments != ["metrics"], !target.segments.isEmpty {
        fuzzAssert(TreePath.isSafe(target.path), "served \(target.path.debugDescription), which is not a safe tree path")
    }
    guard r.status == .partialContent else { return }
    guard let range = r.headers.first(where: { $0.name == .contentRange })?.value else { fuzzAssert(false, "206 without Content-Range"); return }
    let numbers = range.dropFirst("bytes ".count).split(whereSeparator: { $0 == "-" || $0 == "/" }).compactMap { Int64($0) }
    fuzzAssert(numbers.count == 3 && numbers[0] <= numbers[1] && numbers[1] < numbers[2], "bad Content-Range \(range)")
    if numbers.count == 3, req.method != .head {
        fuzzAssert(r.body.length == numbers[1] - numbers[0] + 1, "206 body of \(r.body.length) bytes for \(range)")
    }
}

private func checkParsers(_ req: HTTPRequest, sizeSeed: Int) {
    for size in [Int64(0), 1, Int64(sizeSeed), Int64.max] {
        switch RangeDecision.parse(req.header(.range), size: size) {
        case let .partial(offset, length):
            fuzzAssert(offset >= 0 && length >= 1 && offset <= size - length, "range \(offset)+\(length) outside a file of \(size)")
        case .full, .unsatisfiable: break
        }
    }
    for name in [HTTPHeaderName.ifModifiedSince, .ifUnmodifiedSince, .ifRange] {
        guard let text = req.header(name), let seconds = HTTPDate.parse(text) else { continue }
        fuzzAssert(HTTPDate.parse(HTTPDate.format(seconds)) == seconds, "HTTP date \(text.debugDescription) does not round-trip")
    }
    if let list = req.list(.ifNoneMatch) { _ = EntityTagList(list)?.matches("\"abc\"", weak: true) }
    if let token = Gatekeeper.bearer(req.header(.authorization)) {
        fuzzAssert(!token.isEmpty && req.header(.authorization)!.contains(token), "bearer token not taken from the header")
    }
}

/// A request head cut the way libmicrohttpd cuts it, with the addresses of its parts (relative
/// to a fake buffer) for `RequestHeadLayout`.
struct FuzzRequestHead {
    var method = "", target = "", version = ""
    var fields: [(name: HTTPHeaderName, value: String)] = []
    var layout: RequestHeadLayout

    init?(_ bytes: [UInt8]) {
        let base: UInt = 0x10000
        func cString(_ slice: ArraySlice<UInt8>) -> (String, Int) {
            let visible = slice.prefix { $0 != 0 }
            return (String(decoding: visible, as: UTF8.self), visible.count)
        }
        func span(_ at: Int, _ length: Int) -> RequestHeadLayout.Span { .init(start: base + UInt(at), length: length) }
        var lines: [(start: Int, bytes: ArraySlice<UInt8>)] = []
        var start = 0
        var headEnd: Int?
        for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
            var line = bytes[start..<i]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { headEnd = i + 1; break }
            lines.append((start, line))
            start = i + 1
        }
        guard let first = lines.first else { return nil }
        let parts = first.bytes.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        let m = cString(parts[0])
        method = m.0
        layout = RequestHeadLayout(method: span(first.start, m.1), target: nil, version: nil, fields: [], headSize: headEnd)
        if parts.count > 1 {
            let t = cString(parts[1])
            target = t.0
            layout.target = span(parts[1].startIndex, t.1)
        }
        if parts.count > 2 {
            let v = cString(parts[2])
            version = v.0
            layout.version = span(parts[2].startIndex, v.1)
        }
        for (_, line) in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = cString(line[..<colon])
            let valueStart = line[(colon + 1)...].firstIndex { $0 != 0x20 && $0 != 0x09 } ?? line.endIndex
            let value = cString(line[valueStart...])
            fields.append((HTTPHeaderName(name.0), RequestHeadRules.trimmed(value.0)))
            layout.fields.append((span(line.startIndex, name.1), span(valueStart, value.1)))
        }
    }
}

/// One published tree and one handler for the whole run, with the entitlement gate on.
enum RequestHeadFixture {
    static let fixture: StaticTreeFixture = try! StaticTreeFixture(catalogID: "harbour", bundleSize: 4096)
    nonisolated(unsafe) static let handler: RequestHandler = {
        // No small-file cache: every input takes the path through the tree.
        let served = try! ServedTree(path: fixture.root, cacheBytes: 0)
        let index = CatalogIndex(served: served)
        let verifier = EntitlementVerifier(key: FuzzKeys.secret.publicKey, audience: nil)
        return RequestHandler(served: served, gate: Gatekeeper(verifier: verifier, index: index), metrics: ServerMetrics(), inlineLimit: 1 << 16)
    }()
}

func initializeRequestHead(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        let bundle = RequestHeadFixture.fixture.bundleRef.path
        let token = try EntitlementToken.issue(key: FuzzKeys.secret, issuer: "harbour", subject: "s", audience: "harbour",
                                               corpora: ["sea-guide"], lifetime: 3600, now: Date(timeIntervalSince1970: 1_780_000_000)).compact
        let heads = [
            "GET /catalog.json HTTP/1.1\r\nHost: localhost:8080\r\nIf-None-Match: \"x\", W/\"y\"\r\n\r\n",
            "GET /\(bundle) HTTP/1.1\r\nHost: a\r\nRange: bytes=10-99\r\nIf-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
            "HEAD /\(bundle) HTTP/1.1\r\nHost: [::1]:80\r\nRange: bytes=-5\r\nIf-Modified-Since: Sunday, 06-Nov-94 08:49:37 GMT\r\n\r\n",
            "GET /_auth?path=%2Fbundles%2Fx HTTP/1.1\nHost: h\nAuthorization: Bearer \(token)\nX-Original-URI: /\(bundle)\n\n",
            "GET /a/%2e%2e/b?x=1&y=%00 HTTP/1.0\r\nIf-Unmodified-Since: Sun Nov  6 08:49:37 1994\r\n\r\n",
            "POST /healthz HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n folded\r\n\r\n",
        ]
        return heads.enumerated().map { ("head-\($0.offset)", Array($0.element.utf8)) }
    }
    _ = RequestHeadFixture.handler
    return 0
}
