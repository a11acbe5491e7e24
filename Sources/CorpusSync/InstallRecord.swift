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
    /// Size and modification time of each file of the version folder as installed (verified), so
    /// `install` and `sync` can notice a damaged install cheaply; nil in records of older clients.
    public var files: [String: FileStamp]?
    /// For a version whose pack this client wrote itself (built from the previous version with a
    /// delta, or indexed at install): the SHA-256 and size of that pack file, which is not the
    /// bundle's byte for byte (its rows are checked against the signed manifest's digests), and
    /// the delta's SHA-256 when there was one. Nil for packs extracted from a bundle as they are.
    public var localPack: LocalPack?

    public struct LocalPack: Codable, Sendable, Equatable {
        public var delta: String?
        public var packSHA256: String
        public var packSize: Int64

        public init(delta: String?, packSHA256: String, packSize: Int64) {
            self.delta = delta
            self.packSHA256 = packSHA256
            self.packSize = packSize
        }

        enum CodingKeys: String, CodingKey {
            case delta
            case packSHA256 = "pack_sha256"
            case packSize = "pack_size"
        }
    }

    enum CodingKeys: String, CodingKey {
        case remote, id, version, bundled, installed, files
        case localPack = "local_pack"
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
        try? load(versionDirectory: dir)
    }

    /// The record of a version folder: nil when it has none, `localFileDamaged` when it does not parse.
    public static func load(versionDirectory dir: String) throws -> InstallRecord? {
        let path = "\(dir)/\(fileName)"
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(InstallRecord.self, from: data)
        } catch {
            throw SyncError.localFileDamaged(path: path, reason: "it is not the install record corpus writes")
        }
    }

    public var asRecord: InstalledCorpusRecord {
        InstalledCorpusRecord(remote: remote, id: id, version: version, bundled: bundled)
    }
}

/// A file's size and modification time (nanoseconds since 1970), as `stat(2)` reports them.
public struct FileStamp: Codable, Sendable, Equatable {
    public var size: Int64
    public var mtimeNanoseconds: Int64

    enum CodingKeys: String, CodingKey {
        case size
        case mtimeNanoseconds = "mtime_ns"
    }

    public init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        size = Int64(st.st_size)
        mtimeNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// The stamps of every file of a version folder but the install record itself.
    static func folder(_ dir: String) -> [String: FileStamp] {
        var out: [String: FileStamp] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name != InstallRecord.fileName {
            out[name] = FileStamp(path: "\(dir)/\(name)")
        }
        return out
    }
}

extension InstallRecord {
    /// True when the folder's files have the sizes and times recorded at install: nothing touched
    /// them since. False for a record without stamps (an older client's), which calls for a full check.
    func stampsMatch(_ dir: String) -> Bool {
        guard let files, !files.isEmpty else { return false }
        return FileStamp.folder(dir) == files
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

    /// How many installed corpora count against an import limit (those not bundled), read from
    /// their install records only.
    func importsUsed() -> Int {
        installedCorpora().filter { pair in
            guard let dir = currentVersionDirectory(remote: pair.remote, id: pair.id),
                  let record = InstallRecord.read(versionDirectory: dir) else { return false }
            return !record.bundled
        }.count
    }

    /// Corpora whose `current` version folder holds an install record that does not parse: they
    /// are missing from `installed()`, and `verify` names them with their repair.
    public func damagedInstalls() -> [(name: String, directory: String, error: SyncError)] {
        installedCorpora().compactMap { pair in
            guard let dir = currentVersionDirectory(remote: pair.remote, id: pair.id) else { return nil }
            do {
                _ = try InstallRecord.load(versionDirectory: dir)
                return nil
            } catch let e as SyncError {
                return ("\(pair.remote)/\(pair.id)", dir, e)
            } catch {
                return nil
            }
        }
    }

    static func folderSize(_ dir: String) -> Int64 {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.reduce(Int64(0)) { $0 + (FileIO.fileSize("\(dir)/\($1)") ?? 0) }
    }
}
