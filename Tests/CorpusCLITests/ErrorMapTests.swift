import Testing
import Foundation
import CorpusCLIKit
import CorpusFormat
@testable import CorpusEngine
import CorpusSync
import CorpusPublisher
import CorpusServer
import CorpusObjectStore
@testable import CorpusClientCLI
@testable import CorpusServerCLI

/// The one map from a failure's kind to the exit code, and every domain's errors to their code
/// and kind, for both executables (docs/cli.md "Exit codes").
@Suite struct ErrorMapTests {
    static let exitCodes: [(FailureKind, Int32)] = [
        (.usage, 2), (.verification, 3), (.entitlement, 4), (.network, 5), (.notFound, 6), (.localIO, 7), (.failure, 1),
    ]

    @Test func everyKindHasItsExitCode() {
        #expect(Set(Self.exitCodes.map { "\($0.0)" }) == Set(FailureKind.allCases.map { "\($0)" }), "a kind without a row")
        for (kind, code) in Self.exitCodes {
            #expect(kind.exitCode.rawValue == code, "\(kind)")
            #expect(ErrorReport(code: "x", message: "m", hint: "", kind: kind).exit.rawValue == code)
        }
    }

    static let transport = TransportError.network(reason: "refused")
    static let oldLibcurl = CurlOptionError(option: "CURLOPT_PROTOCOLS_STR", libcurlVersion: "7.74.0", refusal: .tooOld(minimum: "7.85.0"))

    /// A real one: SQLite refusing to open a pack that is not there.
    static let sqliteError: any Error = {
        do { _ = try Database(path: "/nonexistent/folder/pack.sqlite", mode: .readOnly) } catch { return error }
        return CocoaError(.fileReadUnknown)
    }()

    /// Every `SyncError` case: its code and kind on `corpus`'s command line.
    static let syncErrors: [(SyncError, String, FailureKind)] = [
        (.signatureMissing(file: "catalog.json"), "signature", .verification),
        (.signatureInvalid(what: "catalog 3"), "signature", .verification),
        (.untrustedKey(keyID: "AB"), "signature", .verification),
        (.rollback(from: 3, to: 2), "rollback", .verification),
        (.catalogConflict(version: 3), "signature", .verification),
        (.expired(at: "2026-01-01T00:00:00Z"), "expired", .verification),
        (.catalogMismatch(reason: "r"), "unsafe-input", .verification),
        (.malformed(what: "catalog", reason: "bad JSON"), "unsafe-input", .verification),
        (.unsafePack(corpus: "main/x", cause: .integrityCheckFailed(corpus: "main/x", problems: ["page 3"])), "unsafe-pack", .verification),
        (.delta(corpus: "main/x", cause: .resultMismatch(what: "rows digest", expected: "a", actual: "b")), "delta", .verification),
        (.hashMismatch(file: "b", expected: "a", actual: "c"), "integrity", .verification),
        (.sizeExceeded(file: "b", limit: 1), "integrity", .verification),
        (.sizeMismatch(file: "b", expected: 1, actual: 2), "integrity", .verification),
        (.network(after: 3, last: transport), "network", .network),
        (.logRefused(reason: "r"), "log", .verification),
        (.logFork(reason: "r", evidence: "/h/forks/main-1"), "log-fork", .verification),
        (.logNotCosigned(treeSize: 7, cosigned: 0, required: 1), "not-cosigned", .network),
        (.notFound(file: "corpus x"), "not-found", .notFound),
        (.wantedNotOffered(entries: ["x (no catalog offers it)"]), "not-found", .notFound),
        (.insufficientSpace(path: "/h", needed: 1, margin: 1, available: 0), "disk-full", .localIO),
        (.io(operation: "write", path: "/h/x", errno: ENOSPC), "disk-full", .localIO),
        (.io(operation: "open", path: "/h/x", errno: EACCES), "io", .localIO),
        (.localFileDamaged(path: "/h/config.json", reason: "bad JSON"), "local-file", .localIO),
        (.entitlementRequired(file: "x"), "entitlement", .entitlement),
        (.entitlementDenied(file: "x"), "entitlement", .entitlement),
        (.importLimit(used: 3, limit: 3), "import-limit", .entitlement),
        (.lockHeld(path: "/h/locks/x"), "lock-held", .localIO),
        (.notInstalled(name: "x"), "not-found", .notFound),
        (.ambiguousName(name: "docs", candidates: ["a/docs", "b/docs"]), "ambiguous-name", .usage),
        (.remotePinned(name: "main", pinnedKeyID: "AB", givenKeyID: "CD"), "remote-pinned", .usage),
        (.reservedRemoteName("local"), "reserved-name", .usage),
        (.invalidRemote(reason: "remote URL ftp://x is not an http or https URL"), "invalid-remote", .usage),
        (.unsafeRequest(reason: "the Authorization header's value holds a control character (byte 3), which no header may carry"), "unsafe-request", .usage),
        (.httpLibrary(oldLibcurl), "http-library", .failure),
        (.cancelled, "cancelled", .failure),
        (.unexpected(what: "main/x", cause: UnderlyingError(CocoaError(.fileReadUnknown))), "failed", .failure),
    ]

    @Test(arguments: syncErrors)
    func syncErrorOnTheClient(_ error: SyncError, _ code: String, _ kind: FailureKind) {
        let r = ClientErrors.report(error)
        #expect(r.code == code && r.kind == kind, "\(error): \(r.code) \(r.kind)")
        #expect(!r.message.isEmpty)
    }

    /// `corpusd mirror` reports the client library's refusals with the same codes, kinds and
    /// lines (`SyncError` classifies each once); only the hints differ.
    @Test(arguments: syncErrors)
    func syncErrorOnTheMirror(_ error: SyncError, _ code: String, _ kind: FailureKind) {
        let r = ServerErrors.report(error)
        #expect(r.code == code && r.kind == kind, "\(error): \(r.code) \(r.kind)")
        #expect(r.message == ClientErrors.report(error).message)
        #expect(!r.hint.contains("corpus remote") && !r.hint.contains("corpus gc"), "a corpusd hint names a corpus command: \(r.hint)")
    }

    /// A representative error of every other domain, on the executable that meets it.
    static let domains: [(name: String, report: ErrorReport, code: String, kind: FailureKind)] = [
        ("usage", ClientErrors.report(UsageError.missingRequired("--trust", command: "remote add")), "usage", .usage),
        ("usage, corpusd", ServerErrors.report(UsageError.valueForFlag("--force", given: "--force=1", command: "keygen")), "usage", .usage),
        ("a report passes through", ClientErrors.report(ErrorReport(code: "exists", message: "m", hint: "h", kind: .localIO)), "exists", .localIO),
        ("format io", ClientErrors.report(FormatError.io(operation: "open", path: "/x", errno: ENOENT)), "io", .localIO),
        ("format crypto", ClientErrors.report(FormatError.crypto(operation: "EVP_DigestInit")), "crypto", .failure),
        ("format unsupported", ClientErrors.report(FormatError.unsupported(what: "bundle", reason: "format 9")), "unsupported", .verification),
        ("format signature", ServerErrors.report(FormatError.signatureInvalid(what: "x")), "signature", .verification),
        ("format hash", ClientErrors.report(FormatError.hashMismatch(member: "pack.sqlite", expected: "a", actual: "b")), "integrity", .verification),
        ("format malformed", ClientErrors.report(FormatError.malformed(what: "zip", reason: "symlink member")), "unsafe-input", .verification),
        ("token", ClientErrors.report(EntitlementTokenError.expired(at: Date(timeIntervalSince1970: 0))), "token-expired", .entitlement),
        ("token, corpusd", ServerErrors.report(EntitlementTokenError.malformed(reason: "not a JWS")), "token-malformed", .entitlement),
        ("engine: model", ClientErrors.report(EngineError.embedderModelMismatch(corpus: "c", embedder: "e", digest: .filled("d"), reason: "r")), "embedder-mismatch", .verification),
        ("engine: pack", ClientErrors.report(EngineError.packHasJournal(corpus: "c", file: "pack.sqlite-wal")), "unsafe-pack", .verification),
        ("engine: not found", ClientErrors.report(EngineError.corpusNotFound("x")), "not-found", .notFound),
        ("engine: no document", ClientErrors.report(EngineError.documentNotFound(corpus: "c", document: "d.md")), "not-found", .notFound),
        ("engine: no passage", ClientErrors.report(EngineError.passageNotFound(corpus: "c", passage: "p", document: "d.md")), "not-found", .notFound),
        ("engine: a path no pack holds", ClientErrors.report(EngineError.invalidBrowseRequest("a document path has no empty, . or .. segment")), "usage", .usage),
        ("engine: two catalogs", ClientErrors.report(EngineError.corpusAmbiguous("c", candidates: ["a/c", "b/c"])), "usage", .usage),
        ("engine: embedder", ClientErrors.report(EngineError.embedderMismatch(corpus: "c", corpusEmbedder: "a", queryEmbedder: "b")), "embedder", .verification),
        ("engine: no model", ClientErrors.report(EngineError.embedderNotInstalled(corpus: "c", embedder: "e", digest: .filled("d"), installed: [])), "embedder-missing", .notFound),
        ("engine: io", ClientErrors.report(EngineError.io(operation: "read", path: "/x", errno: EIO)), "io", .localIO),
        ("sqlite", ClientErrors.report(sqliteError), "sqlite", .localIO),
        ("sqlite, corpusd", ServerErrors.report(sqliteError), "sqlite", .localIO),
        ("publisher", ServerErrors.report(PublisherError.versionReused(corpus: "tides", version: "1", catalogVersion: 2)), "version-reused", .usage),
        ("publisher: tree", ServerErrors.report(PublisherError.invalidTree(path: "keys/root-1.json", reason: "missing")), "damaged-tree", .verification),
        ("publisher: source", ServerErrors.report(PublisherError.sourceNotFound(path: "/s")), "not-found", .notFound),
        ("publisher: role", ServerErrors.report(PublisherError.keyNotInRole(given: "A", role: .catalog, allowed: ["B"], rootVersion: 2)), "key-not-in-role", .verification),
        ("publisher: threshold", ServerErrors.report(PublisherError.rootThresholdNotMet(version: 2, shortfalls: [RootShortfall(keysOf: 1, signed: 0, threshold: 1, missing: ["A"])])),
         "root-threshold", .verification),
        ("publisher: root version", ServerErrors.report(PublisherError.rootVersionMismatch(draft: 3, expected: 2)), "root-version", .usage),
        ("publisher: draft", ServerErrors.report(PublisherError.invalidRootDraft(path: "d", reason: "r")), "root-draft", .usage),
        ("publisher: draft expired", ServerErrors.report(PublisherError.rootDraftExpired(version: 2, expires: "2026-01-01T00:00:00Z")), "root-expired", .usage),
        ("publisher: ceremony", ServerErrors.report(PublisherError.rotationNeedsCeremony(rootVersion: 2)), "needs-ceremony", .usage),
        ("publisher: no catalog", ServerErrors.report(PublisherError.nothingToTimestamp(tree: "/t", reason: "r")), "no-catalog", .usage),
        ("publisher: revoked catalog key", ServerErrors.report(PublisherError.catalogSignerRevoked(catalogVersion: 1, keyID: "A", rootVersion: 2)), "catalog-key-revoked", .usage),
        ("publisher: exists", ServerErrors.report(PublisherError.fileExists(path: "d")), "exists", .localIO),
        ("object store: unsafe request", ServerErrors.report(ObjectStoreError.unsafeRequest(operation: "HEAD", key: "k", reason: "r")), "unsafe-request", .usage),
        ("object store: libcurl", ServerErrors.report(ObjectStoreError.httpLibrary(operation: "PUT", key: "k", refusal: oldLibcurl)), "http-library", .failure),
        ("server", ServerErrors.report(ServerError.cannotListen(address: "127.0.0.1:80", reason: "in use")), "listen", .localIO),
        ("unknown, corpus", ClientErrors.report(CocoaError(.fileReadUnknown)), "failed", .failure),
        ("unknown, corpusd", ServerErrors.report(CocoaError(.fileReadUnknown)), "failed", .failure),
    ]

    @Test func theSQLiteErrorIsOne() {
        #expect(Self.sqliteError is SQLiteError, "\(Self.sqliteError)")
    }

    @Test(arguments: domains)
    func domainError(_ c: (name: String, report: ErrorReport, code: String, kind: FailureKind)) {
        #expect(c.report.code == c.code && c.report.kind == c.kind, "\(c.name): \(c.report.code) \(c.report.kind)")
    }

    /// A libcurl too old for an option (loaded at run time, so the machine's) reads as one line
    /// naming the option and the release to install, on both executables, never as a network
    /// failure a script would retry.
    @Test func anOldLibcurlReadsAsOneLineNamingTheOption() {
        let line = "libcurl 7.74.0 does not support CURLOPT_PROTOCOLS_STR; install libcurl 7.85.0 or newer"
        let client = ClientErrors.report(SyncError.from(transport: .httpLibrary(Self.oldLibcurl), attempts: 1))
        #expect(client.message == "request not sent: \(line)")
        #expect(client.code == "http-library" && client.exit.rawValue == 1)
        #expect(client.hint.contains("libcurl 7.85.0 or newer"))
        let store = ServerErrors.report(ObjectStoreError.httpLibrary(operation: "PUT", key: "tree/catalog.json",
                                                                     refusal: CurlOptionError(option: "CURLOPT_AWS_SIGV4", libcurlVersion: "7.74.0",
                                                                                              refusal: .tooOld(minimum: "7.75.0"))))
        #expect(store.message == "PUT tree/catalog.json not sent: libcurl 7.74.0 does not support CURLOPT_AWS_SIGV4; install libcurl 7.75.0 or newer")
        #expect(store.code == "http-library" && store.exit.rawValue == 1)
        #expect(!client.message.contains("\n") && !store.message.contains("\n"))
    }

    /// The three user mistakes the client once reported as `unsafe-input` read as what to type.
    @Test func userMistakesSayWhatToType() {
        let ambiguous = ClientErrors.report(SyncError.ambiguousName(name: "docs", candidates: ["a/docs", "b/docs", "c/docs"]))
        #expect(ambiguous.message == "corpus name docs is ambiguous: it names a/docs, b/docs and c/docs")
        #expect(ambiguous.hint == "name it with its catalog, as CATALOG/ID: one of a/docs, b/docs, c/docs")
        let pinned = ClientErrors.report(SyncError.remotePinned(name: "main", pinnedKeyID: "AB", givenKeyID: "CD"))
        #expect(pinned.message == "remote main is already pinned to key AB; refused to pin it to key CD")
        let reserved = ClientErrors.report(SyncError.reservedRemoteName("local"))
        #expect(reserved.message == "the remote name local is reserved for bundles installed with corpus import")
    }
}
