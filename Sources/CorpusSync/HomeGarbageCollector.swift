import CorpusFormat
import Foundation

/// `corpus gc`: removes versions that are not current, links and staging folders killed
/// processes left, partial downloads, and embedder models no installed corpus names.
///
/// It takes each corpus's lock (skipping corpora another process holds), the downloads lock
/// exclusively (skipping partials while anyone downloads), and leaves the staging folders of
/// live processes alone, so it never removes what an install is writing.
struct HomeGarbageCollector: Sendable {
    let home: HomeLayout

    func collect() throws -> CorpusClient.GCReport {
        var report = CorpusClient.GCReport()
        let installer = Installer(home: home)
        for remote in Self.names(in: home.corpora, where: Identifier.isValid) {
            for id in Self.names(in: home.corpora(remote), where: Identifier.isValid) {
                try collect(remote: remote, id: id, installer: installer, into: &report)
            }
        }
        let models = EmbedderInstaller(home: home)
        let unusedModels = models.gc(referenced: models.referenced())
        report.removedEmbedders = unusedModels.removed
        report.bytesFreed += unusedModels.bytesFreed
        try collectPartials(into: &report)
        collectStaging(into: &report)
        return report
    }

    /// One corpus, under its lock: every version but the current one, links a killed install
    /// made but never renamed over `current`, and the whole folder when nothing is current.
    private func collect(remote: String, id: String, installer: Installer, into report: inout CorpusClient.GCReport) throws {
        guard let lock = try? HomeLocks(home: home).corpus(remote: remote, id: id, wait: .no) else { return }
        defer { withExtendedLifetime(lock) {} }
        let corpusDir = home.corpusDirectory(remote: remote, id: id)
        let current = home.currentVersionDirectory(remote: remote, id: id).map { ($0 as NSString).lastPathComponent }
        let versions = home.versionsDirectory(remote: remote, id: id)
        for v in Self.names(in: versions) where v != current {
            report.bytesFreed += HomeLayout.folderSize("\(versions)/\(v)")
            try installer.discardTree("\(versions)/\(v)")
            report.removedVersions.append("\(remote)/\(id)@\(v)")
        }
        // We hold the lock, so no live install is making one of these links.
        let linkPrefix = "current\(Installer.linkTemporarySuffix)"
        for name in Self.names(in: corpusDir) where name.hasPrefix(linkPrefix) {
            unlink("\(corpusDir)/\(name)")
            report.removedStaging.append("\(remote)/\(id)/\(name)")
        }
        if current == nil {
            try installer.discardTree(corpusDir)
        }
    }

    /// Partial downloads, only while no process downloads (the downloads lock taken exclusively).
    private func collectPartials(into report: inout CorpusClient.GCReport) throws {
        try io { try FileIO.createDirectory(home.locks) }
        guard let exclusive = try? HomeLocks(home: home).downloads(.exclusive, wait: .no) else { return }
        defer { withExtendedLifetime(exclusive) {} }
        for name in Self.names(in: home.downloads) {
            let path = "\(home.downloads)/\(name)"
            report.bytesFreed += FileIO.fileSize(path) ?? 0
            FileIO.remove(path)
            report.removedPartials.append(name)
        }
    }

    /// Staging folders (and trash being deleted) of processes that are no longer running.
    private func collectStaging(into report: inout CorpusClient.GCReport) {
        for name in Self.names(in: home.staging) {
            if let pid = Self.stagingOwner(name), pid != getpid(), kill(pid, 0) == 0 { continue }
            report.bytesFreed += HomeLayout.folderSize("\(home.staging)/\(name)")
            FileIO.remove("\(home.staging)/\(name)")
            report.removedStaging.append(name)
        }
    }

    /// The pid a staging entry's name starts with: `<pid>.<random>.…` (an install's staging
    /// folder, a tree moved aside), or `.<pid>.…` (a folder an extraction fills before renaming).
    static func stagingOwner(_ name: String) -> Int32? {
        let trimmed = name.hasPrefix(".") ? name.dropFirst() : Substring(name)
        return trimmed.split(separator: ".", maxSplits: 1).first.flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The entries of `folder`, sorted; none when it cannot be read.
    private static func names(in folder: String, where keep: (String) -> Bool = { _ in true }) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().filter(keep)
    }
}

extension CorpusClient {
    /// What `gc` removed.
    public struct GCReport: Sendable {
        public var removedVersions: [String] = []
        public var removedPartials: [String] = []
        public var removedStaging: [String] = []
        /// Embedder models (`id/digest`) no installed corpus names any more.
        public var removedEmbedders: [String] = []
        public var bytesFreed: Int64 = 0
    }
}
