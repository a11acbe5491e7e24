import CorpusFormat
import Foundation

/// Paths inside the client's home folder (docs/layout.md). Pure path arithmetic: only
/// `createFolders()` touches the disk. Remote names are validated ids, so joined paths
/// never leave the home folder.
public struct HomeLayout: Sendable, Hashable {
    public let root: String

    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    /// `--home` beats `CORPUS_HOME`, then `$XDG_DATA_HOME/corpus`, then `~/.local/share/corpus`
    /// (`~/Library/Application Support/Corpus` on macOS).
    public static func resolve(explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> HomeLayout {
        if let explicit, !explicit.isEmpty { return HomeLayout(root: explicit) }
        if let env = environment["CORPUS_HOME"], !env.isEmpty { return HomeLayout(root: env) }
        #if os(macOS)
        return HomeLayout(root: NSHomeDirectory() + "/Library/Application Support/Corpus")
        #else
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return HomeLayout(root: xdg + "/corpus") }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return HomeLayout(root: home + "/.local/share/corpus")
        #endif
    }

    public var config: String { "\(root)/config.json" }
    public var token: String { "\(root)/token" }
    public var downloads: String { "\(root)/downloads" }
    public var staging: String { "\(root)/staging" }
    public var locks: String { "\(root)/locks" }

    public func trust(_ remote: String) -> String { "\(root)/trust/\(remote)" }
    public func state(_ remote: String) -> String { "\(root)/state/\(remote)" }
    public func acceptedCatalog(_ remote: String) -> String { "\(state(remote))/catalog.json" }
    public func acceptedCatalogSignature(_ remote: String) -> String { acceptedCatalog(remote) + TreeLayout.signatureSuffix }
    public func fetchState(_ remote: String) -> String { "\(state(remote))/fetch.json" }
    public func corpora(_ remote: String) -> String { "\(root)/corpora/\(remote)" }

    /// `downloads/<sha256>.part`: a resumable partial download.
    public func partial(sha256: String) -> String { "\(downloads)/\(sha256).part" }
    /// `downloads/<sha256>.part.json`: where the partial came from and its validator, for `If-Range`.
    public func partialMeta(sha256: String) -> String { partial(sha256: sha256) + ".json" }

    /// Creates the fixed folders (not per-remote ones). Idempotent.
    public func createFolders() throws {
        for dir in [root, downloads, staging, locks, "\(root)/trust", "\(root)/state", "\(root)/corpora"] {
            try FileIO.createDirectory(dir)
        }
    }
}
