import CorpusFormat
import Foundation

/// Installing an entitled corpus published as an encrypted payload (docs/client.md "Encrypted
/// corpora"): the token goes to the gate the signed catalog names and to nothing else; the
/// payload comes from any source like a free bundle (resume, failover, the catalog's SHA-256 and
/// size decide); its plaintext is hashed while it downloads (`PayloadPlaintextCheck`: every chunk
/// authenticated, the end checked) and must be the bundle the catalog lists; then the bundle is
/// read through the payload itself (`AgePayloadReader`, each chunk decrypted and authenticated
/// again as the zip reader asks for it), its manifest signature and members verified as for any
/// bundle, so no plaintext is written anywhere but the staged install and no pass over the payload
/// runs between the download and the extraction. A delta is read the same way.
extension PlanExecutor {
    /// The payload of `offer`, as a download verified against the catalog's plaintext hash.
    func fetchEncryptedBundle(_ offer: OfferedCorpus, payload: BundleRef, name: String, sources: [Source],
                              token: String?) async throws -> VerifiedDownload {
        let key = try await requestKey(payload: payload, remote: offer.remote, token: token, what: name)
        return try await fetchEncrypted(payload, plaintext: offer.entry.bundle, key: key, sources: sources) { p in
            progress?(.downloading(name: name, p))
        }
    }

    /// The payload's file key, from the gate of `remote`'s catalog, for this device's identity.
    func requestKey(payload: BundleRef, remote: String, token: String?, what: String) async throws -> AgeFileKey {
        guard let token else { throw SyncError.entitlementRequired(file: what) }
        guard let gate = catalogs.all.first(where: { $0.remote.name == remote })?.update.catalog.gate else {
            throw SyncError.malformed(what: "catalog of \(remote)", reason: "\(what) is encrypted but the catalog names no gate")
        }
        let identity = try DeviceIdentity.ensure(home)
        let url = KeyRelease.url(gate: gate, payload: payload.digest, recipient: identity.recipient)
        let answer: HTTPResponse
        do {
            answer = try await downloader.client.get(HTTPRequest(url: url, bearerToken: token, maxBodyBytes: KeyRelease.maxAnswerBytes))
        } catch let TransportError.httpStatus(code) {
            switch code {
            case 401: throw SyncError.entitlementRequired(file: what)
            case 403: throw SyncError.entitlementDenied(file: what)
            case 404: throw SyncError.notFound(file: "the key of \(what) at its gate")
            default: throw SyncError.network(after: 1, last: .httpStatus(code: code))
            }
        } catch let e as TransportError {
            throw SyncError.from(transport: e, attempts: 1)
        }
        do {
            return try KeyRelease.open(answer: Array(answer.body), identity: identity).fileKey
        } catch {
            throw SyncError.decryption(file: "the key the gate answered for \(what)", cause: error)
        }
    }

    /// Downloads `payload` from `sources` without any token and checks its plaintext against
    /// `plaintext` (the catalog's bundle or delta) as it downloads, writing nothing: every chunk
    /// and the end of the payload authenticated, and the plaintext's hash held to the catalog,
    /// before anything is extracted. The result is read through the payload
    /// (`VerifiedDownload.payload`); the payload download is discarded on a refusal here, by the
    /// caller after the install otherwise.
    func fetchEncrypted(_ payload: BundleRef, plaintext: BundleRef, key: AgeFileKey, sources: [Source],
                        progress: (@Sendable (DownloadProgress) -> Void)?) async throws -> VerifiedDownload {
        let check = PayloadPlaintextCheck(fileKey: key)
        let download = try await downloader.download(payload, from: sources, token: nil, tap: check, progress: progress)
        var kept = false
        defer { if !kept { downloader.discard(download.digest) } }
        let (digest, size) = try check.verified(as: plaintext, payload: payload.path)
        kept = true
        return VerifiedDownload(path: download.path, digest: digest, size: size,
                                payload: EncryptedDownload(digest: download.digest, key: key))
    }
}
