import CorpusFormat
import Foundation

/// `GET /v1/keys/<payload sha256>?recipient=age1…` (`corpusd serve --key-store DIR`): releases a
/// payload's file key to one device, wrapped to its X25519 recipient in an age header
/// (`KeyRelease`, docs/format.md "Key request").
///
/// The token is checked exactly as for a download of the corpus's bundle (`CorpusAccess`, the
/// same `Gatekeeper` decision: 401 without a valid token, 403 for one that does not cover the
/// corpus), before the key store is read. The answer is made fresh per request and never cached.
struct KeyEndpoint: Sendable {
    let store: KeyStore
    let index: CatalogIndex

    func respond(_ target: RequestTarget, authorization: String?, gate: Gatekeeper) -> HTTPResponse {
        guard target.segments.count == 3, let payload = SHA256Digest(hex: target.segments[2]) else {
            return .refusal(.notFound, "not found")
        }
        let recipients = target.query.filter { $0.name == "recipient" }.map(\.value)
        guard recipients.count == 1, let recipient = try? AgeX25519Recipient(encoded: recipients[0]) else {
            return .refusal(.badRequest, "a key request names one recipient=age1… (the device's X25519 public key)")
        }
        let missing = "no key for that payload here"
        // Which corpus the payload opens is the store's word; whether this token may open it is the
        // catalog's, through the same decision a download of that corpus's bundle gets.
        guard let entry = try? store.entry(payload: payload) else { return .refusal(.notFound, missing) }
        let served = CorpusAccess.served(index.current(recheck: true))
        if let refusal = CorpusAccess.refusal(bundle: served[entry.corpus], available: true, authorization: authorization,
                                              gate: gate, missing: missing) {
            return refusal
        }
        guard let key = try? entry.key(), let answer = try? KeyRelease.answer(fileKey: key, recipient: recipient) else {
            return .refusal(.internalServerError, "the key could not be wrapped")
        }
        return HTTPResponse(status: .ok, headers: [(.contentType, "text/plain; charset=us-ascii"), (.cacheControl, "no-store"),
                                                   (.vary, HTTPHeaderName.authorization.spelling), (.xContentTypeOptions, "nosniff")],
                            body: .bytes(answer))
    }
}
