internal import CMicroHTTPD
import Foundation

/// The C entry points. Each turns its closure pointer back into the object it names.
enum Callbacks {
    static let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { _, uri, _ in
        let ctx = RequestContext(rawTarget: uri.map { String(cString: $0) } ?? "", rawTargetSpan: uri.map { .init($0) })
        return Unmanaged.passRetained(ctx).toOpaque()
    }

    static let access: MHD_AccessHandlerCallback = { cls, connection, _, method, version, _, uploadSize, conCls in
        guard let cls, let connection, let conCls, let raw = conCls.pointee else { return .NO }
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.handle(connection, ctx, method: method, version: version, uploadSize: uploadSize)
    }

    static let completed: MHD_RequestCompletedCallback = { cls, connection, conCls, toe in
        guard let cls, let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        // The next request's head on a kept-alive connection gets a bound of its own.
        if let connection, let watch = headWatch(connection) { core.headDeadline.responseFinished(watch) }
        core.finish(ctx, connection: connection, completed: toe == .REQUEST_TERMINATED_COMPLETED_OK)
    }

    /// Keeps the connection's `RequestHeadDeadline.Watch` (retained) in its socket context from
    /// start to close.
    static let connection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        if code == .CONNECTION_NOTIFY_STARTED {
            core.metrics.connectionOpened()
            if let connection, let socketContext, let watch = core.headDeadline.opened(fd: corpus_mhd_connection_fd(connection)) {
                socketContext.pointee = Unmanaged.passRetained(watch).toOpaque()
            }
        } else {
            // libmicrohttpd reports a connection closed before it closes the descriptor.
            if let socketContext, let raw = socketContext.pointee {
                socketContext.pointee = nil
                core.headDeadline.closed(Unmanaged<RequestHeadDeadline.Watch>.fromOpaque(raw).takeRetainedValue())
            }
            core.metrics.connectionClosed()
        }
    }

    /// The connection's head clock, nil when the bound is off.
    static func headWatch(_ connection: OpaquePointer) -> RequestHeadDeadline.Watch? {
        corpus_mhd_socket_context(connection).map { Unmanaged<RequestHeadDeadline.Watch>.fromOpaque($0).takeUnretainedValue() }
    }

    static func clientAddress(_ connection: OpaquePointer) -> String {
        guard let sa = corpus_mhd_client_address(connection), sa.pointee.sa_family == sa_family_t(AF_INET) else { return "-" }
        let sin = UnsafeRawPointer(sa).loadUnaligned(as: sockaddr_in.self)
        return withUnsafeBytes(of: sin.sin_addr.s_addr) { AccessLogEntry.ipv4(networkOrder: $0) }
    }
}

/// The header fields of a request as libmicrohttpd holds them (`MHD_get_connection_values_n`),
/// in the order received: names as received and values without surrounding whitespace for the
/// handler, and where each lay in libmicrohttpd's buffer for `RequestHeadLayout`.
final class RequestHeadReader {
    var headers: [(name: HTTPHeaderName, value: String)] = []
    var spans: [(name: RequestHeadLayout.Span, value: RequestHeadLayout.Span)] = []

    static func read(_ connection: OpaquePointer) -> RequestHeadReader {
        let box = RequestHeadReader()
        let iterator: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
            guard let cls, let key else { return .YES }
            let box = Unmanaged<RequestHeadReader>.fromOpaque(cls).takeUnretainedValue()
            let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
            let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
            box.headers.append((HTTPHeaderName(name), RequestHeadRules.trimmed(text)))
            box.spans.append((.init(start: UInt(bitPattern: key), length: keySize),
                              .init(start: value.map { UInt(bitPattern: $0) } ?? 0, length: valueSize)))
            return .YES
        }
        withExtendedLifetime(box) {
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, iterator, Unmanaged.passUnretained(box).toOpaque())
        }
        return box
    }
}

@available(*, unavailable) extension RequestHeadReader: Sendable {}
