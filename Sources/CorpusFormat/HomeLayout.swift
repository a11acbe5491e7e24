import Foundation

/// Paths inside the application-support home folder (docs/layout.md). Pure: creates nothing.
/// Remote names and corpus ids are validated `Identifier`s before they get here, so no path
/// built from them can leave the home folder.
public struct HomeLayout: Sendable, Hashable {
    public let root: String

    public init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// `--home`, else `CORPUS_HOME`, else `$XDG_DATA_HOME/corpus`, else `~/.local/share/corpus`
    /// (`~/Library/Application Support/Corpus` on macOS).
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> HomeLayout {
        if let explicit, !explicit.isEmpty { return HomeLayout(root: absolute(explicit)) }
        if let env = environment["CORPUS_HOME"], !env.isEmpty { return HomeLayout(root: absolute(env)) }
        #if os(macOS)
        return HomeLayout(root: NSHomeDirectory() + "/Library/Application Support/Corpus")
        #else
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return HomeLayout(root: xdg + "/corpus") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return HomeLayout(root: home + "/.local/share/corpus")
        #endif
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The remote name used for corpora imported from local files.
    public static let localRemote = "local"

    public var config: String { "\(root)/config.json" }
    public var token: String { "\(root)/token" }
    /// `install-id`: 64 random hex digits made once, the seed of every rollout bucket (`RolloutBucket`).
    public var installID: String { "\(root)/install-id" }
    /// The device's age X25519 identity (`AGE-SECRET-KEY-1…`, mode 600), to which gates wrap the
    /// keys of encrypted payloads; made when the first remote is added.
    public var identity: String { "\(root)/identity.txt" }
    public func trust(_ remote: String) -> String { "\(root)/trust/\(remote)" }
    public func state(_ remote: String) -> String { "\(root)/state/\(remote)" }
    public func acceptedCatalog(_ remote: String) -> String { "\(state(remote))/catalog.json" }
    public func acceptedCatalogSignature(_ remote: String) -> String { acceptedCatalog(remote) + TreeLayout.signatureSuffix }
    public func fetchState(_ remote: String) -> String { "\(state(remote))/fetch.json" }
    /// The catalog parts a client read for `remote`'s accepted top document, by their tree names' last segment.
    public func acceptedParts(_ remote: String) -> String { "\(state(remote))/parts" }
    /// The listing parts (and listing index) a client read for `remote`'s catalog, by the same names.
    public func acceptedListing(_ remote: String) -> String { "\(state(remote))/listing" }
    /// The freshness document accepted last, and its signature (docs/layout.md).
    public func acceptedTimestamp(_ remote: String) -> String { "\(state(remote))/\(TreeLayout.timestamp)" }
    public func acceptedTimestampSignature(_ remote: String) -> String { acceptedTimestamp(remote) + TreeLayout.signatureSuffix }
    public var corpora: String { "\(root)/corpora" }
    public func corpora(_ remote: String) -> String { "\(corpora)/\(remote)" }
    public func corpusDirectory(remote: String, id: String) -> String { "\(corpora)/\(remote)/\(id)" }
    public func versionsDirectory(remote: String, id: String) -> String { "\(corpusDirectory(remote: remote, id: id))/versions" }
    public func versionDirectory(remote: String, id: String, version: String) -> String {
        "\(versionsDirectory(remote: remote, id: id))/\(version)"
    }
    public func currentLink(remote: String, id: String) -> String { "\(corpusDirectory(remote: remote, id: id))/current" }
    public var downloads: String { "\(root)/downloads" }
    public var staging: String { "\(root)/staging" }
    public var locks: String { "\(root)/locks" }

    /// `downloads/<sha256>.part`: a resumable partial download.
    public func partial(sha256: SHA256Digest) -> String { "\(downloads)/\(sha256.hex).part" }
    /// `downloads/<sha256>.part.json`: where the partial came from and its validator, for `If-Range`.
    public func partialMeta(sha256: SHA256Digest) -> String { partial(sha256: sha256) + ".json" }

    /// Creates the fixed folders (not per-remote ones). Idempotent.
    public func createFolders() throws {
        for dir in [root, downloads, staging, locks, "\(root)/trust", "\(root)/state", corpora] {
            try FileIO.createDirectory(dir)
        }
    }
    public func lockFile(_ name: String) -> String { "\(locks)/\(name).lock" }

    /// Every (remote, id) with a `current` link, sorted.
    public func installedCorpora() -> [(remote: String, id: String)] {
        let fm = FileManager.default
        var out: [(String, String)] = []
        for remote in ((try? fm.contentsOfDirectory(atPath: corpora)) ?? []).sorted() where Identifier.isValid(remote) {
            for id in ((try? fm.contentsOfDirectory(atPath: "\(corpora)/\(remote)")) ?? []).sorted() where Identifier.isValid(id) {
                if (try? fm.destinationOfSymbolicLink(atPath: currentLink(remote: remote, id: id))) != nil {
                    out.append((remote, id))
                }
            }
        }
        return out
    }

    /// The version folder `current` points at, resolved once; nil when not installed.
    public func currentVersionDirectory(remote: String, id: String) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: currentLink(remote: remote, id: id)) else { return nil }
        // Links are written relative (versions/<v>); never follow one that climbs out.
        guard TreePath.isSafe(target) else { return nil }
        return "\(corpusDirectory(remote: remote, id: id))/\(target)"
    }
}
