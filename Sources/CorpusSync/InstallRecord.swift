import CorpusFormat
import Foundation

/// `install.json` in an installed version folder: where the version came from. Written into the
/// staging folder before the rename, so a version folder that exists is always complete.
public struct InstallRecord: Codable, Sendable, Equatable {
    public var remote: String
    public var id: String
    public var version: CorpusVersion
    public var bundled: Bool
    /// SHA-256 of the bundle file it was installed from.
    public var bundleSHA256: String
    public var bundleSize: Int64
    public var installed: String

    enum CodingKeys: String, CodingKey {
        case remote, id, version, bundled, installed
        case bundleSHA256 = "bundle_sha256"
        case bundleSize = "bundle_size"
    }

    public static let fileName = "install.json"

    public init(remote: String, id: String, version: CorpusVersion, bundled: Bool, bundleSHA256: String, bundleSize: Int64, installed: Date) {
        self.remote = remote
        self.id = id
        self.version = version
        self.bundled = bundled
        self.bundleSHA256 = bundleSHA256
        self.bundleSize = bundleSize
        self.installed = Timestamp.format(installed)
    }

    public static func read(versionDirectory dir: String) -> InstallRecord? {
        guard let data = FileManager.default.contents(atPath: "\(dir)/\(fileName)") else { return nil }
        return try? JSONDecoder().decode(InstallRecord.self, from: data)
    }

    public var asRecord: InstalledCorpusRecord {
        InstalledCorpusRecord(remote: remote, id: id, version: version, bundled: bundled)
    }
}

/// One installed corpus as `list` shows it.
public struct InstalledVersion: Sendable, Equatable {
    public var record: InstallRecord
    public var directory: String
    /// Bytes on disk of the current version folder.
    public var size: Int64
    public var manifest: Manifest?
}

extension HomeLayout {
    /// Every installed corpus, with its current version's record.
    public func installed() -> [InstalledVersion] {
        installedCorpora().compactMap { pair -> InstalledVersion? in
            guard let dir = currentVersionDirectory(remote: pair.remote, id: pair.id),
                  let record = InstallRecord.read(versionDirectory: dir) else { return nil }
            let manifest = FileManager.default.contents(atPath: "\(dir)/\(BundleLayout.manifest)").flatMap { try? Manifest.decode($0) }
            return InstalledVersion(record: record, directory: dir, size: Self.folderSize(dir), manifest: manifest)
        }
    }

    static func folderSize(_ dir: String) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.reduce(Int64(0)) { $0 + (FileIO.fileSize("\(dir)/\($1)") ?? 0) }
    }
}
