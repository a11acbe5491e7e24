import CorpusEngine
import CorpusFormat
import Foundation

/// Everything the client library refuses or fails at, one case per security refusal. Each case
/// is classified here once (`category`, `code`, `headline`); the command lines add their hints,
/// and docs/cli.md "Exit codes" maps the category to an exit code.
///
/// No case carries a token or key material.
public enum SyncError: Error, Equatable, Sendable {
    // Signatures and trust (exit 3).
    case signatureMissing(file: String)
    case signatureInvalid(what: String)
    /// Signed by a key that is not the newest root this client accepted for the remote.
    case untrustedKey(keyID: String)
    /// The signed catalog is older than the highest version already accepted.
    case rollback(from: Int, to: Int)
    /// A catalog part lists a corpus at a version below one an earlier accepted catalog listed
    /// (TAP 16: a Merkle-snapshot client checks each entry's version, not only the top's).
    case entryRollback(corpus: String, from: String, to: String)
    /// The same catalog version was re-signed with different content.
    case catalogConflict(version: Int)
    /// The catalog's expiry (a `Timestamp` string) has passed.
    case expired(at: String)
    /// A signed document says something inconsistent with what was asked for.
    case catalogMismatch(reason: String)
    /// A root document of the tree is not the next trusted root: its signatures do not meet a
    /// threshold (`reason` says whose keys, how many signed and which did not).
    case rootNotTrusted(file: String, reason: String)
    /// The newest root the client walked to has expired (TUF §5.3.10): its holders must sign a new one.
    case rootExpired(version: Int, at: String)
    /// The freshness document (`timestamp.json`) has expired: the server or a mirror serves frozen content.
    case timestampExpired(at: String)
    /// The tree has no freshness document although this remote's trust requires one.
    case timestampMissing(file: String)
    /// The freshness document's version is below the one accepted before.
    case timestampRollback(from: Int, to: Int)
    /// The tree's transparency log does not hold up: missing where it is required, a bad
    /// signature, a witness's cosignature that does not verify, a proof that fails, the catalog not in it.
    case logRefused(reason: String)
    /// Two checkpoints signed by the log that no append-only log can both have signed: someone was
    /// shown another history. `evidence` is the folder keeping both notes as served.
    case logFork(reason: String, evidence: String)
    /// The log's newest checkpoint holds up (signed by the log, consistent with the one accepted
    /// before, the catalog in it) but carries `cosigned` of the `required` witness cosignatures:
    /// published and not cosigned yet. Nothing acceptable yet, not an attack: the refresh keeps
    /// what it accepted before, as when no source answers (exit 5).
    case logNotCosigned(treeSize: UInt64, cosigned: Int, required: Int)
    /// A document of the tree is in a format newer than this client reads.
    case unsupportedFormat(what: String, reason: String)
    /// A signed or fetched document could not be used (fishy ids, bad JSON, bad paths).
    case malformed(what: String, reason: String)
    /// A bundle whose signature and hashes hold but whose pack does not open or fails SQLite's
    /// integrity check (corrupt pages, triggers in its schema): refused at install, not at query
    /// time. `cause` is the engine's refusal (`InstalledCorpus.checkExtracted`), as it was thrown.
    case unsafePack(corpus: String, cause: EngineError)
    /// A delta that could not be used for `corpus` (`DeltaError` says why); the update then takes
    /// the full bundle, so this is reported beside a result, or as the failure when that failed too.
    case delta(corpus: String, cause: DeltaError)
    /// An encrypted payload, or the key the gate answered for it, that does not decrypt for this
    /// device: a header for another device, a wrong key, a tampered or truncated chunk.
    case decryption(file: String, cause: AgeError)

    // Content (exit 3); the partial download is already discarded when these are thrown.
    case hashMismatch(file: String, expected: String, actual: String)
    case sizeExceeded(file: String, limit: Int64)
    case sizeMismatch(file: String, expected: Int64, actual: Int64)

    // Network (exit 5): every source and retry failed; `last` is the last transport failure.
    case network(after: Int, last: TransportError)
    /// Offline mode is on (`--offline`, `CORPUS_OFFLINE=1`) and `action` needs the network: refused
    /// before any request, with nothing sent (exit 5).
    case offline(action: String)
    /// Every source answered 404 (exit 6).
    case notFound(file: String)
    /// A wanted-file names ids, versions or catalogs the catalogs do not offer (each entry says
    /// which and why); the whole sync is refused before anything is installed or removed.
    case wantedNotOffered(entries: [String])

    // Local (exit 7).
    /// `needed` bytes plus a safety `margin` for the file system do not fit in `available`.
    case insufficientSpace(path: String, needed: Int64, margin: Int64, available: Int64)
    case io(operation: String, path: String, errno: Int32)
    /// A file this client wrote into its own home folder (config, accepted catalog, install
    /// record, token) cannot be read back: a local problem, not the publisher's.
    case localFileDamaged(path: String, reason: String)

    // Entitlement (exit 4).
    /// The origin answered 401: no token, or one it could not verify.
    case entitlementRequired(file: String)
    /// The origin answered 403: the token does not cover this corpus or catalog.
    case entitlementDenied(file: String)
    /// Installing one more non-bundled corpus would pass the import limit.
    case importLimit(used: Int, limit: Int)

    // Local state.
    case lockHeld(path: String)
    case notInstalled(name: String)

    // A mistake in what was asked (exit 2); nothing was done. Never a refusal to trust something.
    /// `name` (an `id` without its catalog) names several corpora, offered or installed;
    /// `candidates` are their `catalog/id` names, sorted.
    case ambiguousName(name: String, candidates: [String])
    /// `remote add` for a name already pinned to another root key: re-pinning needs `remote remove` first.
    case remotePinned(name: String, pinnedKeyID: String, givenKeyID: String)
    /// The remote name `local` is the home's own, for imported bundles.
    case reservedRemoteName(String)
    /// A remote name that is not a valid id, or a remote URL that is not http or https.
    case invalidRemote(reason: String)
    /// A request this client would send carries a value no request may (a control character in a
    /// URL, a token or another header: `RequestFieldCheck`); nothing was sent. The reason names
    /// the field, never its value.
    case unsafeRequest(reason: String)
    /// The HTTP library this process loaded (libcurl, at the first request) refused an option a
    /// request needs: it is older than the option, or built without it. Nothing was sent; no
    /// retry or other source can help, so the first refusal ends the operation.
    case httpLibrary(CurlOptionError)

    case cancelled
    /// An error of another layer that no case describes, carried as it was thrown (`carrying`): an
    /// unexpected failure, never reported as a refusal to trust something.
    case unexpected(what: String, cause: UnderlyingError)

    public typealias Category = ErrorCategory

    public var category: Category {
        switch self {
        case .signatureMissing, .signatureInvalid, .untrustedKey, .rollback, .entryRollback, .catalogConflict, .expired, .catalogMismatch,
             .malformed, .unsafePack, .delta, .decryption, .hashMismatch, .sizeExceeded, .sizeMismatch,
             .rootNotTrusted, .rootExpired, .timestampExpired, .timestampMissing, .timestampRollback, .unsupportedFormat,
             .logRefused, .logFork:
            return .verification
        case .network, .offline, .logNotCosigned: return .network
        case .notFound, .notInstalled, .wantedNotOffered: return .notFound
        case .entitlementRequired, .entitlementDenied, .importLimit: return .entitlement
        case .lockHeld: return .localIO
        case .insufficientSpace, .io, .localFileDamaged: return .localIO
        case .cancelled: return .cancelled
        case .ambiguousName, .remotePinned, .reservedRemoteName, .invalidRemote, .unsafeRequest: return .usage
        case .unexpected, .httpLibrary: return .failure
        }
    }

    /// The stable code a command reports for this error (`{"error": {"code": …}}`, docs/cli.md),
    /// the same for `corpus` and `corpusd mirror`.
    public var code: String {
        switch self {
        case .rollback, .entryRollback, .timestampRollback: return "rollback"
        case .expired, .rootExpired, .timestampExpired: return "expired"
        case .signatureMissing, .signatureInvalid, .untrustedKey, .catalogConflict, .rootNotTrusted, .timestampMissing: return "signature"
        case .unsupportedFormat: return "unsupported-format"
        case .logRefused: return "log"
        case .logFork: return "log-fork"
        case .logNotCosigned: return "not-cosigned"
        case .hashMismatch, .sizeExceeded, .sizeMismatch: return "integrity"
        case .catalogMismatch, .malformed: return "unsafe-input"
        case .unsafePack: return "unsafe-pack"
        case .delta: return "delta"
        case .decryption: return "decryption"
        case .wantedNotOffered, .notFound, .notInstalled: return "not-found"
        case .localFileDamaged: return "local-file"
        case .entitlementRequired, .entitlementDenied: return "entitlement"
        case .importLimit: return "import-limit"
        case .network: return "network"
        case .offline: return "offline"
        case .insufficientSpace: return "disk-full"
        case .io where isOutOfSpace: return "disk-full"
        case .io: return "io"
        case .lockHeld: return "lock-held"
        case .cancelled: return "cancelled"
        case .unexpected: return "failed"
        case .ambiguousName: return "ambiguous-name"
        case .remotePinned: return "remote-pinned"
        case .reservedRemoteName: return "reserved-name"
        case .invalidRemote: return "invalid-remote"
        case .unsafeRequest: return "unsafe-request"
        case .httpLibrary: return "http-library"
        }
    }

    /// The one line a command shows: what was refused, then `description`.
    public var headline: String {
        switch self {
        case .rollback, .entryRollback, .expired, .timestampExpired, .timestampRollback: return "refused the catalog: \(description)"
        case .delta: return "refused the delta: \(description)"
        case let .importLimit(used, limit): return "refused before downloading: import limit reached (\(used) of \(limit) used)"
        case _ where category == .verification: return "refused: \(description)"
        default: return description
        }
    }

    /// Any error met while working on `what` (a corpus), as the client's own: a `SyncError` as it
    /// is, a format refusal by its meaning (`from`), an engine refusal of a pack as `unsafePack`,
    /// cancellation as `cancelled`, and anything else carried whole in `unexpected`.
    static func carrying(_ error: any Error, what: String) -> SyncError {
        switch error {
        case let e as SyncError: return e
        case let e as DeltaError: return .delta(corpus: what, cause: e)
        case let e as FormatError: return .from(e)
        case let e as EngineError where e.isVerificationRefusal: return .unsafePack(corpus: what, cause: e)
        case is CancellationError: return .cancelled
        default: return .unexpected(what: what, cause: UnderlyingError(error))
        }
    }

    /// A transport failure after `attempts` tries as the client's own: a request refused before
    /// sending is the caller's mistake (`unsafeRequest`), anything else the network's.
    public static func from(transport e: TransportError, attempts: Int) -> SyncError {
        switch e {
        case let .unsafeRequest(reason): return .unsafeRequest(reason: reason)
        case let .httpLibrary(refusal): return .httpLibrary(refusal)
        default: return .network(after: attempts, last: e)
        }
    }

    /// Maps a format-layer refusal to the client's own case, keeping its precise meaning.
    ///
    /// - Parameter file: the file the refusal is about when the format error does not say (the
    ///   mirror names the tree file it checked: a member's refusal then reads `file: member`, and
    ///   a refusal without its own subject names `file`); nil for the client's own callers.
    public static func from(_ error: FormatError, file: String? = nil) -> SyncError {
        let member = { (name: String) in file.map { "\($0): \(name)" } ?? name }
        switch error {
        case let .signatureMissing(f): return .signatureMissing(file: f)
        case let .signatureInvalid(what): return .signatureInvalid(what: what)
        case let .keyIDMismatch(_, actual): return .untrustedKey(keyID: actual)
        case let .untrustedKey(keyID): return .untrustedKey(keyID: keyID)
        case let .malformed(what, reason) where file == nil:
            return .malformed(what: what, reason: reason)
        case let .unsupported(what, reason) where file == nil:
            return .unsupportedFormat(what: what, reason: reason)
        case let .hashMismatch(name, expected, actual): return .hashMismatch(file: member(name), expected: expected, actual: actual)
        case let .sizeMismatch(name, expected, actual): return .sizeMismatch(file: member(name), expected: expected, actual: actual)
        case let .sizeExceeded(name, limit): return .sizeExceeded(file: member(name), limit: limit)
        case let .io(operation, path, code): return .io(operation: operation, path: path, errno: code)
        case .crypto where file != nil: return .io(operation: error.description, path: file!, errno: EIO)
        default: return .malformed(what: file ?? "input", reason: error.description)
        }
    }
}

extension SyncError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .signatureMissing(file): return "\(file) has no signature"
        case let .signatureInvalid(what): return "the signature of \(what) does not verify"
        case let .untrustedKey(keyID): return "signed by key \(keyID), which is not the trusted root key"
        case let .rollback(from, to): return "the server offers catalog version \(to), older than version \(from) already accepted"
        case let .entryRollback(corpus, from, to):
            return "a catalog part lists \(corpus) at version \(to), older than version \(from) already accepted"
        case let .catalogConflict(version): return "catalog version \(version) was re-signed with different content"
        case let .expired(at): return "the catalog expired at \(at)"
        case let .catalogMismatch(reason): return "the catalog does not match: \(reason)"
        case let .rootNotTrusted(file, reason): return "\(file) is not a trusted root: \(reason)"
        case let .rootExpired(version, at):
            return "root version \(version) of this catalog expired at \(at); its root key holders must sign and publish a new root"
        case let .timestampExpired(at): return "timestamp.json expired at \(at): the server or mirror is serving frozen content"
        case let .timestampMissing(file): return "\(file) is missing, and this catalog's trust requires a current one"
        case let .timestampRollback(from, to): return "the server offers timestamp version \(to), older than version \(from) already accepted"
        case let .logRefused(reason): return "the catalog's transparency log: \(reason)"
        case let .logNotCosigned(size, cosigned, required):
            return "the catalog's newest log checkpoint (tree size \(size)) is not yet cosigned by enough witnesses: "
                + "it carries \(cosigned) of the \(required) witness cosignature(s) this remote requires"
        case let .logFork(reason, evidence):
            return "the catalog's transparency log forked: \(reason); both checkpoints are kept in \(evidence): report them to the publisher and its witnesses"
        case let .unsupportedFormat(what, reason): return "\(what) is not supported by this client: \(reason)"
        case let .malformed(what, reason): return "\(what) is malformed: \(reason)"
        case let .unsafePack(corpus, cause): return "the pack of \(corpus) is not safe to search: \(cause)"
        case let .delta(corpus, cause): return "\(corpus): \(cause)"
        case let .decryption(file, cause): return "\(file) does not decrypt for this device: \(cause)"
        case let .hashMismatch(file, expected, actual): return "\(file): SHA-256 is \(actual), the signed catalog says \(expected)"
        case let .sizeExceeded(file, limit): return "\(file): more than the signed size of \(limit) bytes"
        case let .sizeMismatch(file, expected, actual): return "\(file): \(actual) bytes, the signed catalog says \(expected)"
        case let .network(after, last): return "unavailable after \(after) attempt\(after == 1 ? "" : "s"): \(last)"
        case let .offline(action): return "offline mode is on: \(action) needs the network, and nothing was sent"
        case let .notFound(file): return "\(file) was not found on any source"
        case let .wantedNotOffered(entries):
            return "the wanted-file names what no catalog offers: \(entries.joined(separator: "; ")); nothing was installed or removed"
        case let .insufficientSpace(path, needed, margin, available):
            return "not enough free space in \(path): needs \(needed) bytes plus a margin of \(margin) bytes for the file system; \(available) bytes available"
        case let .io(operation, path, code): return "\(operation) \(path): \(String(cString: strerror(code)))"
        case let .localFileDamaged(path, reason): return "\(path), a file of this home folder, is damaged: \(reason)"
        case let .entitlementRequired(file): return "\(file) needs an entitlement token and none was accepted"
        case let .entitlementDenied(file): return "the entitlement token does not cover \(file)"
        case let .importLimit(used, limit): return "the import limit is reached: \(used) of \(limit) corpora installed"
        case let .lockHeld(path): return "another corpus process is working on this (lock \(path))"
        case let .notInstalled(name): return "\(name) is not installed"
        case .cancelled: return "cancelled"
        case let .ambiguousName(name, candidates):
            return "corpus name \(name) is ambiguous: it names \(Self.list(candidates))"
        case let .remotePinned(name, pinned, given):
            return "remote \(name) is already pinned to key \(pinned); refused to pin it to key \(given)"
        case let .reservedRemoteName(name):
            return "the remote name \(name) is reserved for bundles installed with corpus import"
        case let .invalidRemote(reason): return reason
        case let .unsafeRequest(reason): return "request not sent: \(reason)"
        case let .httpLibrary(e): return "request not sent: \(e)"
        case let .unexpected(what, cause): return "\(what): \(cause)"
        }
    }
    public var errorDescription: String? { description }

    /// `a`, `a and b`, `a, b and c`.
    private static func list(_ names: [String]) -> String {
        names.count <= 2 ? names.joined(separator: " and ") : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }
}

extension SyncError {
    /// True for two log-signed checkpoints no append-only log could both have signed (`logFork`).
    var isLogFork: Bool {
        if case .logFork = self { return true }
        return false
    }

    /// True for a log checkpoint that holds up but is not cosigned yet (`logNotCosigned`).
    var isNotCosigned: Bool {
        if case .logNotCosigned = self { return true }
        return false
    }

    /// What to do about a damaged local file, by which file of the home folder it is (docs/layout.md).
    public var localFileAdvice: String? {
        guard case let .localFileDamaged(path, _) = self else { return nil }
        let parts = path.split(separator: "/").map(String.init)
        // `state/<remote>/log-checkpoints/<tree size>`, the note kept proofs name.
        if parts.dropLast().last == "log-checkpoints" {
            return "run corpus sync: it keeps a new proof, and the checkpoint it names, for each corpus installed"
        }
        // The names of `HomeLayout.config`, `.token` and the install record.
        switch parts.last ?? "" {
        case "config.json":
            return "fix it, or remove it and add the catalogs again (corpus remote add NAME URL --trust KEY.pub)"
        case InstallRecord.fileName:
            // …/corpora/<remote>/<id>/versions/<version>/install.json
            let name = parts.count >= 5 ? "\(parts[parts.count - 5])/\(parts[parts.count - 4])" : "ID"
            return "reinstall the corpus: corpus install \(name)"
        case "token":
            return "store the token again (corpus logout, then corpus login TOKEN)"
        default:
            return "remove it; the next corpus catalog fetches and verifies the catalog again"
        }
    }
}
