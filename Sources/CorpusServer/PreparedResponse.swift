internal import CMicroHTTPD
import Foundation

/// A libmicrohttpd response with its status, header fields and body, built once. libmicrohttpd
/// counts the connections sending a response (`MHD_queue_response` adds one, the end of the
/// request drops it, under the response's own lock), so one built response may be queued on any
/// number of connections, on any worker thread, for as long as this object holds its reference;
/// `deinit` drops it (`MHD_destroy_response`), and libmicrohttpd frees the response once the last
/// connection sending it is done.
final class PreparedResponse: @unchecked Sendable {
    // @unchecked: after init the handle is only passed to MHD_queue_response, which is safe from
    // any thread, and to MHD_destroy_response once, in deinit.
    let status: HTTPStatus
    /// Body bytes a GET is sent.
    let bodyLength: Int64
    let handle: OpaquePointer

    /// nil when libmicrohttpd cannot build it (out of memory, or a file descriptor it refuses);
    /// a file body's descriptor then is closed here. Also nil when it refuses one of the header
    /// fields (`MHD_add_response_header`: CR or LF in a value, a space in a name, no memory): the
    /// response without it would say something other than meant. `close` adds `Connection: close`.
    init?(_ response: HTTPResponse, close: Bool) {
        guard let mhd = Self.make(response.body) else { return nil }
        var fields = response.headers.map { (name: $0.name.spelling, value: $0.value) }
        if close { fields.append((HTTPHeaderName.connection.spelling, "close")) }
        // An empty value is left out, as libmicrohttpd always did with it (it refuses one).
        for field in fields where !field.value.isEmpty {
            guard MHD_add_response_header(mhd, field.name, field.value) == .YES else {
                MHD_destroy_response(mhd) // closes a file body's descriptor, which it owns
                return nil
            }
        }
        handle = mhd
        status = response.status
        bodyLength = response.body.length
    }

    deinit { MHD_destroy_response(handle) }

    /// The body as libmicrohttpd holds it: small ones copied into the response, files sent from
    /// their descriptor (which libmicrohttpd then owns and closes).
    private static func make(_ body: ResponseBody) -> OpaquePointer? {
        switch body {
        case .none:
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case let .bytes(bytes):
            return bytes.withUnsafeBytes { MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY) }
        case let .file(file, offset, length):
            let fd = file.release()
            let mhd = MHD_create_response_from_fd_at_offset64(UInt64(length), fd, UInt64(offset))
            if mhd == nil { Glibc.close(fd) }
            return mhd
        case .prepared:
            return nil // already built; `ServerCore.queue` sends it as it is
        }
    }
}
