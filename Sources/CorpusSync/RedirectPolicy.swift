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

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
}
