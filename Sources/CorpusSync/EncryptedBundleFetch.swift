import CorpusFormat
import Foundation

/// Installing an entitled corpus published as an encrypted payload (docs/client.md "Encrypted
/// corpora"): the token goes to the gate the signed catalog names and to nothing else; the
/// payload comes from any source like a free bundle (resume, failover, the catalog's SHA-256 and
/// size decide); its plaintext is hashed once in a streaming pass (every chunk authenticated, the
/// end checked) and must be the bundle the catalog lists; then the bundle is read through the
/// payload itself (`AgePayloadReader`, each chunk decrypted and authenticated again as the zip
/// reader asks for it), its manifest signature and members verified as for any bundle, so no
/// plaintext is written anywhere but the staged install. A delta is still decrypted into one file
/// in `staging/` (removed with every outcome and by `gc`) because the delta reader takes a path.
extension PlanExecutor {
    /// The decrypted bundle of `offer`, as a download verified against the catalog's plaintext hash.
    func fetchEncryptedBundle(_ offer: OfferedCorpus, payload: BundleRef, name: String, sources: [Source],
                              token: String?) async throws -> VerifiedDownload {
        let key = try await requestKey(payload: payload, remote: offer.remote, token: token, what: name)
        let plaintext = offer.entry.bundle
        let download = try await downloader.download(payload, from: sources, token: nil) { p in
            progress?(.downloading(name: name, p))
        }
        var kept = false
        defer { if !kept { downloader.discard(download.digest) } }
        // One streaming pass: the plaintext hash the catalog lists, and every chunk and the end of
        // the payload authenticated before anything is extracted. Nothing is written.
        let (digest, size) = try decrypting(payload) { try EncryptedPayload.decrypt(fileAt: download.path, fileKey: key) { _ in } }
        try check(digest: digest, size: size, against: plaintext)
        kept = true
        return VerifiedDownload(path: download.path, digest: digest, size: size,
                                payload: EncryptedDownload(digest: download.digest, key: key))
    }

    private func decrypting<R>(_ payload: BundleRef, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let e as AgeError {
            throw SyncError.decryption(file: payload.path, cause: e)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
    }

    private func check(digest: SHA256Digest, size: Int64, against plaintext: BundleRef) throws {
        guard size == plaintext.size else { throw SyncError.sizeMismatch(file: plaintext.path, expected: plaintext.size, actual: size) }
        guard digest == plaintext.digest else { throw SyncError.hashMismatch(file: plaintext.path, expected: plaintext.digest.hex, actual: digest.hex) }
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

    /// Downloads `payload` from `sources` without any token, decrypts it into a new file in
    /// `staging/`, and checks the plaintext against `plaintext` (the catalog's delta).
    /// The ciphertext download is discarded in every case; the plaintext file on any refusal.
    func fetchAndDecrypt(_ payload: BundleRef, plaintext: BundleRef, key: AgeFileKey, sources: [Source],
                         progress: (@Sendable (DownloadProgress) -> Void)?) async throws -> VerifiedDownload {
        let download = try await downloader.download(payload, from: sources, token: nil, progress: progress)
        defer { downloader.discard(download.digest) }
        try io { try FileIO.createDirectory(home.staging) }
        _ = try FreeSpace.require(plaintext.size, at: home.staging)
        // The pid leads the name, as for an install's staging folder, so `gc` removes it after a crash.
        let out = "\(home.staging)/\(getpid()).\(UInt32.random(in: 0...UInt32.max)).decrypted"
        var kept = false
        defer { if !kept { FileIO.remove(out) } }
        let (digest, size) = try decrypting(payload) {
            var result: (SHA256Digest, Int64)?
            try FileIO.writeNew(out, mode: 0o600) { file in
                result = try EncryptedPayload.decrypt(fileAt: download.path, fileKey: key) { try file.write($0) }
            }
            return result!
        }
        try check(digest: digest, size: size, against: plaintext)
        kept = true
        return VerifiedDownload(path: out, digest: digest, size: size)
    }

    /// Removes a decrypted delta once installed (or refused).
    func discardDecrypted(_ download: VerifiedDownload) {
        if download.path.hasPrefix(home.staging + "/") { FileIO.remove(download.path) }
    }
}
