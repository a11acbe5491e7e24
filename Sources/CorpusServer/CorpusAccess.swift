/// Whether a request may use a corpus through an endpoint (search, browse): exactly when it may
/// download that corpus's bundle (`Gatekeeper`), one decision for every endpoint.
enum CorpusAccess {
    /// Each corpus the tree's catalogs list, with one of its bundle paths (as segments). An
    /// entitled bundle is preferred, so a corpus any catalog gates stays gated.
    static func served(_ snapshot: CatalogIndex.Snapshot) -> [String: [String]] {
        var out: [String: (entitled: Bool, path: String)] = [:]
        for (path, owners) in snapshot.bundles {
            for o in owners {
                let entitled = o.access == .entitled
                if let held = out[o.corpus], held.entitled || (!entitled && held.path < path) { continue }
                out[o.corpus] = (entitled, path)
            }
        }
        return out.mapValues { $0.path.split(separator: "/").map(String.init) }
    }

    /// nil when corpus `id`, served here (`bundle`, nil when no catalog lists it) and `available`
    /// to the endpoint, may be used with `authorization`; else the refusal: 404 (`missing`) for a
    /// corpus not served or unlisted, 401 without a valid token, 403 for one that does not cover it.
    static func refusal(bundle: [String]?, available: Bool, authorization: String?, gate: Gatekeeper,
                        missing: String) -> HTTPResponse? {
        guard let bundle, available else { return .refusal(.notFound, missing) }
        switch gate.decide(bundle, authorization: authorization) {
        case .open, .granted: return nil
        case .unlisted: return .refusal(.notFound, missing)
        case let .unauthenticated(e): return RequestHandler.unauthorized(e)
        case let .forbidden(reason): return RequestHandler.forbidden(reason)
        }
    }
}

extension HTTPResponse {
    /// A JSON answer about corpora the caller may use: it depends on the token (entitled
    /// corpora), so no shared cache may keep it.
    static func perCaller(json body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: [(.contentType, "application/json"), (.cacheControl, "no-store"),
                                            (.vary, HTTPHeaderName.authorization.spelling), (.xContentTypeOptions, "nosniff")],
                     body: .bytes(body))
    }
}
