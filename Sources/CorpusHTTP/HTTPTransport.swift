import Foundation

/// The seam between `HTTPClient` (CorpusSync) and the library that moves the bytes: one GET, one
/// hop, no redirect followed. `HTTPClient` keeps everything that must not depend on the library
/// (which redirects are followed, where the bearer token goes, the async bridge); `TransferState`
/// keeps the per-hop rules every transport applies the same way (the body cap, stalls, the
/// low-speed limit, cancellation, what is done with a redirect's body). docs/apple.md lists what
/// each transport can and cannot do.
package protocol HTTPTransport: AnyObject {
    /// Sends `url` with `headers` (the bearer token among them when it goes to this origin) and
    /// drives `state` until the transfer ends or `state` stops it.
    func transfer(url: String, headers: [(name: String, value: String)], state: TransferState) throws -> HTTPHop
}

/// How one hop ended.
package enum HTTPHop {
    case done(HTTPResponseHead)
    case redirect(String)
}

/// Makes the transport of an `HTTPClient`: `.curl` (CorpusSync, Linux) or `.urlSession`
/// (CorpusURLSession). `HTTPClientConfiguration.transport` nil means the platform's default:
/// libcurl on Linux, URLSession on Apple platforms.
///
/// Why a factory in its own module rather than an enum: on Linux URLSession is FoundationNetworking,
/// which links libcurl at start; a `corpus` that could pick it at run time would load libcurl and
/// its libraries for every `corpus search`, which `CorpusSync` otherwise loads only at the first
/// request (docs/engine.md "Start-up"). So only a program that imports CorpusURLSession links it.
public struct HTTPTransportFactory: Sendable, CustomStringConvertible {
    public let name: String
    package let make: @Sendable (HTTPClientConfiguration) throws -> any HTTPTransport

    package init(name: String, make: @escaping @Sendable (HTTPClientConfiguration) throws -> any HTTPTransport) {
        self.name = name
        self.make = make
    }

    public var description: String { name }
}
