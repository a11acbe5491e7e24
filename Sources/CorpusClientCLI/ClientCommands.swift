import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// The `corpus` commands: each turns parsed arguments into library calls and prints the result,
/// as text for people or one JSON object with `--json`.
struct ClientCommands {
    let cmd: ParsedCommand
    let console: Console
    let home: HomeLayout
    let client: CorpusClient
    /// A stored token that is not a token: refused by the commands that would use it.
    let storedTokenDamage: Error?

    init(cmd: ParsedCommand, console: Console) {
        self.cmd = cmd
        self.console = console
        let env = CommandEnvironment(ProcessInfo.processInfo.environment)
        home = HomeLayout.resolve(explicit: cmd.value("--home"), environment: env.values)
        var token = cmd.value("--token") ?? env.token
        var damage: Error?
        if token == nil {
            do { token = try CorpusClient.loadStoredToken(home) } catch { damage = error }
        }
        storedTokenDamage = damage
        var client = CorpusClient(home: home, token: token, retry: RetryPolicy().scaled(by: env.retryScale))
        // CORPUS_LOCK_WAIT: seconds to wait for another corpus process working on the same corpus (default 30).
        if let wait = env.seconds("CORPUS_LOCK_WAIT", where: { $0 >= 0 }) {
            client.lockWait = wait == 0 ? .no : .upTo(seconds: wait)
        }
        // CORPUS_CATALOG_DEADLINE: seconds one catalog refresh may take in all (default 20).
        if let deadline = env.seconds("CORPUS_CATALOG_DEADLINE", where: { $0 > 0 }) {
            client.catalogDeadline = deadline
        }
        self.client = client
    }

    /// The commands that read the token (to show locks, apply the import limit or download).
    static let tokenCommands: Set<[String]> = [["catalog"], ["show"], ["install"], ["sync"], ["status"]]

    func run() async throws -> Int32 {
        if let storedTokenDamage, Self.tokenCommands.contains(cmd.spec.path) { throw storedTokenDamage }
        switch cmd.spec.path {
        case ["remote", "add"]: try remoteAdd()
        case ["remote", "list"]: try remoteList()
        case ["remote", "remove"]: try remoteRemove()
        case ["catalog"]: try await catalog()
        case ["show"]: try await show()
        case ["install"]: return try await install()
        case ["import"]: try importBundle()
        case ["remove"]: return try remove()
        case ["list"]: list()
        case ["sync"]: return try await sync()
        case ["search"]: try await search()
        case ["verify"]: return try verify()
        case ["gc"]: try gc()
        case ["status"]: try await status()
        case ["login"]: try login()
        case ["logout"]: logout()
        default: throw UsageError.unknownCommand(cmd.spec.name)
        }
        return 0
    }

    // MARK: remotes

    func remoteAdd() throws {
        let name = cmd.positionals[0], url = cmd.positionals[1]
        let keyPath = cmd.value("--trust")!
        let key = try PublicKey(contentsOf: keyPath)
        let remote = try client.addRemote(name: name, url: url, mirrors: cmd.values("--mirror"), trust: key)
        if console.json {
            console.emit(["remote": ["name": remote.name, "url": remote.url, "mirrors": remote.mirrors, "key_id": key.keyID.description]])
        } else {
            console.info("added \(remote.name) → \(remote.url), pinned key \(key.keyID)" +
                         (remote.mirrors.isEmpty ? "" : " (\(remote.mirrors.count) mirror\(remote.mirrors.count == 1 ? "" : "s"))"))
            console.info("next: corpus catalog")
        }
    }

    func remoteList() throws {
        let remotes = try client.config().remotes
        if console.json {
            console.emit(["remotes": remotes.map { ["name": $0.name, "url": $0.url, "mirrors": $0.mirrors] as [String: Any] }])
            return
        }
        if remotes.isEmpty { console.info("no catalogs; add one with: corpus remote add NAME URL --trust KEY.pub") }
        for r in remotes { console.out("\(r.name)\t\(r.url)\(r.mirrors.isEmpty ? "" : "\tmirrors: " + r.mirrors.joined(separator: ", "))") }
    }

    func remoteRemove() throws {
        try client.removeRemote(name: cmd.positionals[0])
        if console.json { console.emit(["removed": cmd.positionals[0]]) } else { console.info("removed catalog \(cmd.positionals[0])") }
    }

    // MARK: browsing

    /// Refreshes catalogs; a refusal stops the command, a network failure falls back to what was accepted.
    func refreshedOffers() async throws -> [OfferedCorpus] {
        for r in try await client.refreshCatalogs() {
            if case let .failure(e) = r.result {
                if e.category == .network, (try? CatalogState(home: home).accepted(r.remote.name)) != nil {
                    console.err("warning: \(r.remote.name): \(e.description); showing the catalog accepted earlier")
                    continue
                }
                throw e
            }
        }
        return try client.offered()
    }

    func catalogRows(_ offers: [OfferedCorpus]) throws -> [[String: Any]] {
        let installed = client.installed()
        let catalogIDs = try catalogIDsByRemote()
        return offers.map { o in
            let have = installed.first { $0.record.remote == o.remote && $0.record.id == o.entry.id }
            var row: [String: Any] = [
                "id": o.entry.id, "version": o.entry.version.description, "title": o.entry.title,
                "description": o.entry.description, "size": o.entry.bundle.size, "access": o.entry.access.rawValue,
                "language": o.entry.language, "license": o.entry.license, "catalog": o.remote, "bundled": o.entry.bundled,
                "documents": o.entry.documents, "passages": o.entry.passages,
                "installed": have != nil, "locked": client.isLocked(o, catalogID: catalogIDs[o.remote]),
                "update_available": have.map { $0.record.version < o.entry.version } ?? false,
            ]
            if let tier = o.entry.tier { row["tier"] = tier }
            if let have { row["installed_version"] = have.record.version.description }
            return row
        }
    }

    func catalogIDsByRemote() throws -> [String: String] {
        var out: [String: String] = [:]
        for r in try client.config().remotes {
            if let c = try CatalogState(home: home).accepted(r.name) { out[r.name] = c.catalog.id }
        }
        return out
    }

    func catalog() async throws {
        var offers = try await refreshedOffers()
        let words = cmd.positionals.joined(separator: " ").lowercased().split(separator: " ").map(String.init)
        if !words.isEmpty {
            offers = offers.filter { o in
                let hay = "\(o.entry.id) \(o.entry.title) \(o.entry.description)".lowercased()
                return words.allSatisfy { hay.contains($0) }
            }
        }
        if let lang = cmd.value("--language") { offers = offers.filter { $0.entry.language == lang } }
        if let access = cmd.value("--access") {
            guard let a = Access(rawValue: access) else {
                throw UsageError.invalidValue(option: "--access", value: access, expected: "free or entitled")
            }
            offers = offers.filter { $0.entry.access == a }
        }
        let rows = try catalogRows(offers)
        if console.json { console.emit(["corpora": rows]); return }
        if rows.isEmpty { console.info("no corpora match"); return }
        let clash = Dictionary(grouping: offers, by: { $0.entry.id }).filter { $0.value.count > 1 }.keys
        for (o, row) in zip(offers, rows) {
            let name = clash.contains(o.entry.id) ? "\(o.remote)/\(o.entry.id)" : o.entry.id
            var state: [String] = []
            if row["locked"] as? Bool == true { state.append("locked (\(o.entry.tier.map { "tier \($0)" } ?? "entitlement") needed)") }
            if let v = row["installed_version"] as? String {
                state.append(row["update_available"] as? Bool == true ? "installed \(v), update to \(o.entry.version) available" : "installed")
            }
            if o.entry.bundled { state.append("bundled") }
            console.out("\(name) \(o.entry.version)  \(TerminalText.sanitizeLine(o.entry.title))  [\(ByteFormat.size(o.entry.bundle.size)), \(o.entry.access.rawValue)\(state.isEmpty ? "" : "; " + state.joined(separator: "; "))]")
            if !o.entry.description.isEmpty { console.out("    \(o.entry.description)") }
        }
    }

    func show() async throws {
        let offers = try await refreshedOffers()
        let planner = SyncPlanner(offered: offers, installed: client.installed().map(\.record.asRecord), importLimit: nil)
        let offer: OfferedCorpus
        switch planner.resolveOffer(cmd.positionals[0]) {
        case let .success(o): offer = o
        case let .failure(.ambiguous(c)):
            throw SyncError.malformed(what: "corpus name \(cmd.positionals[0])", reason: "several catalogs offer it; use one of \(c.joined(separator: ", "))")
        case .failure: throw SyncError.notFound(file: "corpus \(cmd.positionals[0])")
        }
        let row = try catalogRows([offer])[0]
        if console.json { console.emit(["corpus": row]); return }
        let e = offer.entry
        console.out("\(TerminalText.sanitizeLine(e.title)) (\(offer.remote)/\(e.id) \(e.version))")
        if !e.description.isEmpty { console.out(e.description) }
        console.out("  language \(e.language), license \(e.license.isEmpty ? "unspecified" : e.license)")
        console.out("  \(e.documents) documents, \(e.passages) passages, \(ByteFormat.size(e.bundle.size)), embedder \(e.embedder.id)")
        console.out("  access \(e.access.rawValue)\(e.tier.map { " (tier \($0))" } ?? "")\(e.bundled ? ", bundled starter corpus" : "")")
        console.out("  \(row["locked"] as? Bool == true ? "locked: needs a token covering it (corpus login TOKEN)" : (row["installed"] as? Bool == true ? "installed \(row["installed_version"] ?? "")" : "not installed: corpus install \(e.id)"))")
    }

    // MARK: install / sync

    func install() async throws -> Int32 {
        let wanted = try cmd.positionals.map { text -> WantedCorpus in
            let parts = text.split(separator: "@", maxSplits: 1).map(String.init)
            return WantedCorpus(id: parts[0], version: try parts.count == 2 ? CorpusVersion.parse(parts[1]) : nil)
        }
        let progress = ProgressRenderer(console: console)
        let outcomes = try await client.install(wanted, progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "install")
    }

    func sync() async throws -> Int32 {
        var wanted: [WantedCorpus]?
        if let file = cmd.value("--wanted") {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ErrorReport(code: "not-found", message: "cannot read the wanted-file \(file)", hint: "check the path", exit: .notFound)
            }
            do { wanted = try JSONDecoder().decode([WantedCorpus].self, from: data) } catch {
                throw ErrorReport(code: "usage", message: "\(file) is not a JSON list of corpus ids",
                                  hint: "write e.g. [\"docs\", \"field-guide-tides@2\", {\"id\": \"x\", \"version\": \"1\"}]", exit: .usage)
            }
        } else if cmd.has("--prune") {
            throw UsageError.missingRequired("--wanted FILE (--prune removes what the wanted-file does not list)", command: "sync --prune")
        }
        let progress = ProgressRenderer(console: console)
        let outcomes = try await client.sync(wanted: wanted, prune: cmd.has("--prune"), progress: progress.handler)
        progress.finish()
        return report(outcomes, verb: "sync")
    }

    /// Prints per-corpus results; the exit code is that of the first refusal.
    func report(_ outcomes: [CorpusClient.Outcome], verb: String) -> Int32 {
        let firstFailure = outcomes.first { $0.error != nil }?.error
        if console.json {
            var results: [[String: Any]] = []
            for o in outcomes {
                var r: [String: Any] = ["corpus": o.name, "status": o.kind.rawValue]
                if let v = o.version { r["version"] = v }
                if let p = o.previousVersion { r["previous_version"] = p }
                if let e = o.error {
                    let rep = ClientErrors.report(e)
                    r["error"] = ["code": rep.code, "message": rep.message, "hint": rep.hint]
                }
                results.append(r)
            }
            let changed = outcomes.filter(\.changed).count
            console.emit(["results": results, "changed": changed, "failed": outcomes.filter { $0.error != nil }.count])
        } else {
            for o in outcomes {
                switch o.kind {
                case .installed: console.info("installed \(o.name) \(o.version ?? "")")
                case .updated: console.info("updated \(o.name) \(o.previousVersion ?? "") → \(o.version ?? "")")
                case .unchanged: console.info("\(o.name) \(o.version ?? "") is up to date")
                case .repaired: console.info("repaired \(o.name) \(o.version ?? ""): its installed files did not verify, so it was downloaded and installed again")
                case .removed: console.info("removed \(o.name)")
                case .failed:
                    let rep = ClientErrors.report(o.error!)
                    console.err("error: \(o.name): \(rep.message)" + (rep.hint.isEmpty ? "" : " (\(rep.hint))"))
                }
            }
            if outcomes.allSatisfy({ $0.kind == .unchanged }) && verb == "sync" { console.info("nothing to do") }
        }
        return firstFailure.map { ClientErrors.report($0).exit.rawValue } ?? 0
    }

    func importBundle() throws {
        let keys = try cmd.values("--trust").map { try PublicKey(contentsOf: $0) }
        let m = try client.importBundle(path: cmd.positionals[0], trustedKeys: keys)
        if console.json {
            console.emit(["imported": ["id": m.id, "version": m.version.description, "catalog": HomeLayout.localRemote]])
        } else {
            console.info("imported \(m.id) \(m.version) (\(m.documents) documents, \(m.passages) passages) as local/\(m.id)")
        }
    }

    func remove() throws -> Int32 {
        var first: Error?
        var removed: [String] = []
        for name in cmd.positionals {
            do {
                let r = try client.remove(name)
                removed.append(r.qualifiedName)
                console.info("removed \(r.qualifiedName) \(r.version) (run corpus gc to free its space)")
            } catch {
                if first == nil { first = error }
                if !console.json { _ = console.refuse(ClientErrors.report(error)) }
            }
        }
        if console.json {
            var obj: [String: Any] = ["removed": removed]
            if let first {
                let r = ClientErrors.report(first)
                obj["error"] = ["code": r.code, "message": r.message, "hint": r.hint]
            }
            console.emit(obj)
        }
        return first.map { ClientErrors.report($0).exit.rawValue } ?? 0
    }

    func list() {
        let items = client.installed()
        if console.json {
            console.emit(["installed": items.map { c -> [String: Any] in
                ["id": c.record.id, "version": c.record.version.description, "catalog": c.record.remote, "bundled": c.record.bundled,
                 "size": c.size, "title": c.manifest?.title ?? "", "documents": c.manifest?.documents ?? 0,
                 "passages": c.manifest?.passages ?? 0, "installed": c.record.installed]
            }])
            return
        }
        if items.isEmpty { console.info("nothing installed; see what is offered with: corpus catalog"); return }
        for c in items {
            console.out("\(c.record.remote)/\(c.record.id) \(c.record.version)  \(TerminalText.sanitizeLine(c.manifest?.title ?? ""))  [\(ByteFormat.size(c.size))\(c.record.bundled ? ", bundled" : "")]")
        }
    }

    // MARK: search

    func search() async throws {
        let query = cmd.positionals.joined(separator: " ")
        var options = SearchOptions()
        if let k = cmd.value("-k") {
            guard let n = Int(k), (1...1000).contains(n) else { throw UsageError.invalidValue(option: "-k", value: k, expected: "a number from 1 to 1000") }
            options.k = n
        }
        options.corpora = cmd.values("--corpus")
        options.lexicalOnly = cmd.has("--lexical-only")
        let library = CorpusLibrary(home: home.root)
        // Each corpus is searched with the embedder its manifest names: the hashing embedder, or the
        // installed model (fetched by install and sync). A corpus whose model is not installed (an
        // imported bundle, say) is searched by words only, with a note; a model that is installed
        // but does not match its digest is refused by the engine.
        if !options.lexicalOnly {
            for c in client.installed() {
                guard let e = c.manifest?.embedder, let digest = e.digest, EmbedderManifest.isValidID(e.id), InstalledEmbedder.isDigest(digest),
                      !FileIO.exists(home.embedderDirectory(id: e.id, digest: digest)) else { continue }
                let name = "\(c.record.remote)/\(c.record.id)"
                guard options.corpora.isEmpty || options.corpora.contains(c.record.id) || options.corpora.contains(name) else { continue }
                options.lexicalOnlyCorpora.insert(name)
                console.err("note: \(name) needs the embedder model \(e.id), which is not installed; searched by words only (corpus sync installs it)")
            }
        }
        let start = Date()
        let searched = try await library.searchReport(query, options: options)
        let hits = searched.hits
        let ms = Int(Date().timeIntervalSince(start) * 1000)
        let skipped = searched.skipped.map { s -> (name: String, report: ErrorReport) in
            let r = ClientErrors.report(s.error)
            return (s.name, ErrorReport(code: r.code, message: r.message, hint: Self.repairHint(s.name), exit: r.exit))
        }
        if console.json {
            console.emit(["query": query, "took_ms": ms,
                          "skipped": skipped.map { ["corpus": $0.name, "error": ["code": $0.report.code, "message": $0.report.message, "hint": $0.report.hint]] },
                          "hits": hits.map { h -> [String: Any] in
                ["corpus": h.corpus, "catalog": h.remote, "version": h.version, "document": h.document, "title": h.documentTitle,
                 "section": h.section, "text": h.text, "snippet": h.snippet, "score": h.score, "passage": h.passageID,
                 "ranks": ["lexical": h.lexicalRank.map { $0 as Any } ?? NSNull(), "vector": h.vectorRank.map { $0 as Any } ?? NSNull()]]
            }])
            return
        }
        for s in skipped { console.err("note: skipped \(s.name): \(s.report.message) (\(s.report.hint))") }
        if hits.isEmpty {
            console.info(client.installed().isEmpty ? "nothing installed to search; install a corpus first (corpus catalog)" : "no results for \(query.debugDescription)")
            return
        }
        for (i, h) in hits.enumerated() {
            let ranks = [h.lexicalRank.map { "bm25 #\($0)" }, h.vectorRank.map { "vector #\($0)" }].compactMap { $0 }.joined(separator: ", ")
            console.out("\(i + 1). \(TerminalText.sanitizeLine(h.documentTitle))\(h.section.isEmpty ? "" : " › \(TerminalText.sanitizeLine(h.section))")  [\(h.corpus) \(h.version): \(h.document); \(ranks)]")
            console.out("   \(TerminalText.sanitizeLine(h.snippet.isEmpty ? String(h.text.prefix(200)) : h.snippet))")
        }
        console.info("\(hits.count) result\(hits.count == 1 ? "" : "s") in \(ms) ms")
    }

    // MARK: maintenance

    func verify() throws -> Int32 {
        let results = try client.verify(cmd.positionals.first)
        let first = results.first { $0.error != nil }?.error
        if console.json {
            console.emit(["verified": results.map { r -> [String: Any] in
                var o: [String: Any] = ["corpus": r.name, "ok": r.error == nil]
                if let e = r.error { o["error"] = ["code": ClientErrors.report(e).code, "message": e.description, "hint": Self.verifyHint(e, r.name)] }
                return o
            }])
        } else {
            if results.isEmpty { console.info("nothing installed to verify") }
            for r in results {
                if let e = r.error { console.err("FAILED \(r.name): \(e.description) (\(Self.verifyHint(e, r.name)))") } else { console.info("ok \(r.name)") }
            }
        }
        return first.map { ClientErrors.report($0).exit.rawValue } ?? 0
    }

    /// What to do about an installed corpus that does not verify or open: `install` repairs it
    /// (it reinstalls a current version whose files fail their check); an import is imported again.
    static func repairHint(_ name: String) -> String {
        name.hasPrefix("\(HomeLayout.localRemote)/") ? "import its bundle again: corpus import FILE.corpus.zip" : "repair it with: corpus install \(name)"
    }

    static func verifyHint(_ error: SyncError, _ name: String) -> String {
        error.localFileAdvice ?? repairHint(name)
    }

    func gc() throws {
        let r = try client.gc()
        if console.json {
            console.emit(["removed_versions": r.removedVersions, "removed_partials": r.removedPartials,
                          "removed_staging": r.removedStaging, "removed_embedders": r.removedEmbedders, "bytes_freed": r.bytesFreed])
        } else {
            let models = r.removedEmbedders.isEmpty ? "" : ", \(r.removedEmbedders.count) unused embedder model\(r.removedEmbedders.count == 1 ? "" : "s")"
            console.info("removed \(r.removedVersions.count) old version\(r.removedVersions.count == 1 ? "" : "s"), \(r.removedPartials.count) partial download\(r.removedPartials.count == 1 ? "" : "s"), \(r.removedStaging.count) leftover\(r.removedStaging.count == 1 ? "" : "s")\(models); freed \(ByteFormat.size(r.bytesFreed))")
        }
    }

    func status() async throws {
        let config = try client.config()
        var catalogs: [[String: Any]] = []
        for r in try await client.refreshCatalogs() {
            var row: [String: Any] = ["name": r.remote.name, "url": r.remote.url]
            switch r.result {
            case let .success(update):
                row["version"] = update.catalog.version
                row["expires"] = update.catalog.expires
                row["fresh"] = true
            case let .failure(e):
                row["error"] = e.description
                row["fresh"] = false
                if let accepted = try? CatalogState(home: home).accepted(r.remote.name) {
                    row["version"] = accepted.catalog.version
                    row["expires"] = accepted.catalog.expires
                }
            }
            catalogs.append(row)
        }
        let offers = try client.offered()
        let installed = client.installed()
        let updates = installed.compactMap { c -> [String: Any]? in
            guard let o = offers.first(where: { $0.remote == c.record.remote && $0.entry.id == c.record.id }),
                  o.entry.version > c.record.version else { return nil }
            return ["corpus": "\(c.record.remote)/\(c.record.id)", "installed": c.record.version.description, "available": o.entry.version.description]
        }
        let used = installed.filter { !$0.record.bundled }.count
        let limit = try client.importLimit()
        if console.json {
            var obj: [String: Any] = ["home": home.root, "catalogs": catalogs, "installed": installed.count, "updates": updates,
                                      "imports_used": used, "token": client.token != nil]
            obj["import_limit"] = limit.map { $0 as Any } ?? NSNull()
            console.emit(obj)
            return
        }
        console.out("home: \(home.root)")
        if config.remotes.isEmpty { console.out("catalogs: none (corpus remote add NAME URL --trust KEY.pub)") }
        for c in catalogs {
            let state = (c["fresh"] as? Bool == true) ? "fresh" : "unreachable: \(c["error"] ?? "")"
            console.out("catalog \(c["name"]!): version \(c["version"].map { "\($0)" } ?? "none"), expires \(c["expires"].map { "\($0)" } ?? "-"), \(state)")
        }
        console.out("installed: \(installed.count) corpora; imports used \(used) of \(limit.map(String.init) ?? "unlimited") (bundled corpora do not count)")
        if updates.isEmpty { console.out("updates: none") }
        for u in updates { console.out("update available: \(u["corpus"]!) \(u["installed"]!) → \(u["available"]!) (corpus sync)") }
        if let claims = client.claims {
            console.out("token: for \(claims.subject), expires \(Timestamp.format(claims.expiresAt))")
        }
    }

    func login() throws {
        let token = cmd.positionals[0]
        let check: TokenCheck
        do { check = try client.checkToken(token) } catch let e as EntitlementTokenError {
            let hint = if case .malformed = e { "paste the whole token the publisher gave you" } else { "get a new token from the publisher" }
            throw ErrorReport(code: "token-\(e.code)", message: "login refused, nothing stored: \(e)", hint: hint, exit: .entitlement)
        }
        let claims: EntitlementClaims
        switch check {
        case let .verified(c, _): claims = c
        case let .unchecked(c, keyID):
            claims = c
            console.err("warning: no key pinned here can check this token's signature (key \(keyID ?? "unnamed")); the server checks it at the first entitled download")
        }
        try FileIO.createDirectory(home.root)
        try FileIO.writeAtomically(Data(token.utf8), to: home.token, mode: 0o600)
        if console.json {
            var obj: [String: Any] = ["subject": claims.subject, "expires": Timestamp.format(claims.expiresAt), "corpora": claims.corpora, "tiers": claims.tiers]
            obj["import_limit"] = claims.importLimit.map { $0 as Any } ?? NSNull()
            console.emit(["token": obj])
        } else {
            let covers = (claims.corpora.map { "corpus \($0)" } + claims.tiers.map { "tier \($0)" }).joined(separator: ", ")
            console.info("stored a token for \(claims.subject) covering \(covers.isEmpty ? "nothing" : covers), expires \(Timestamp.format(claims.expiresAt))" +
                         (claims.importLimit.map { ", import limit \($0)" } ?? ""))
        }
    }

    func logout() {
        FileIO.remove(home.token)
        if console.json { console.emit(["token": NSNull()]) } else { console.info("removed the stored token") }
    }
}
