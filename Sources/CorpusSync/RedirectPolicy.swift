import Foundation

/// Which redirects the client follows, and whether the bearer token goes along.
///
/// libcurl's automatic following is off so that these rules hold regardless of libcurl's
/// version (CVE-2018-1000007 leaked `Authorization` across hosts): the token goes only to
/// the scheme, host and port it was given for, and https never downgrades to http.
enum RedirectPolicy {
    struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int

        /// `scheme://host:port`, the port always spelled, so two spellings of one origin compare equal.
        var text: String { "\(scheme)://\(host):\(port)" }
    }

    static func origin(of url: String) -> Origin? {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), let host = c.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        let port = c.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return Origin(scheme: scheme, host: host, port: port)
    }

    /// Checks one hop from `current` to `target`; returns the target's origin.
    static func check(from current: String, to target: String) throws(TransportError) -> Origin {
        guard let from = origin(of: current) else { throw .redirectRefused(reason: "cannot parse \(current)") }
        guard let to = origin(of: target) else { throw .redirectRefused(reason: "cannot parse the redirect target") }
        guard to.scheme == "http" || to.scheme == "https" else {
            throw .redirectRefused(reason: "redirect to a \(to.scheme) URL")
        }
        if from.scheme == "https" && to.scheme == "http" {
            throw .redirectRefused(reason: "https to http downgrade")
        }
        return to
    }

    /// A request carrying the bearer token may leave its origin only for a storage origin the
    /// remote names (the token is not sent there): a gate's redirect to a presigned URL. Anywhere
    /// else is refused, so no origin can send the client to a host nobody chose. The message
    /// names the host only: the target's query may be a presigned credential.
    static func checkTokenRedirect(to target: Origin, tokenOrigin: Origin, storage: [String]) throws(TransportError) {
        guard target != tokenOrigin, !storage.contains(target.text) else { return }
        throw .redirectRefused(reason: "a request carrying the token was redirected to \(target.host):\(target.port), "
            + "which the remote does not name as a storage origin (corpus remote add … --storage \(target.scheme)://\(target.host):\(target.port))")
    }

}
