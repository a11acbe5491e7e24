import Foundation
import CorpusFormat

/// One step of an upload, for the command line to draw.
public enum TreeUploadProgress: Sendable {
    /// An object is being written (`bytes` long).
    case uploading(key: String, bytes: Int64)
    /// An identical object (same size and SHA-256) is already there.
    case present(key: String)
    /// An object no catalog of the tree names any more, removed after the pointer moved.
    case deleted(key: String)
}

/// What an upload did.
public struct TreeUploadSummary: Sendable, Equatable {
    public var catalogVersion: Int
    public var uploaded: [String] = []
    public var uploadedBytes: Int64 = 0
    public var present: [String] = []
    public var deleted: [String] = []
    /// Content-addressed files of the tree that no catalog names, left out.
    public var unreferenced: [String] = []
}

/// Writes a local published tree into object storage in the order readers rely on, so that a
/// client reading the bucket during an upload, or after one that was cut off anywhere, sees the
/// old catalog or the new one with everything it names (docs/operations.md "S3 and a CDN"):
///
/// 1. content-addressed files (bundles, embedder artifacts, deltas), skipped when the object is
///    already there with the same size and SHA-256; entitled ones into the private location;
/// 2. root documents (each after its signatures), then numbered catalogs (immutable);
/// 3. the other mutable files (`keys/root.pub`, `index.html`), then `timestamp.json` and its
///    signature (mutable, like the pointer);
/// 4. the pointer `catalog.json`, last;
/// 5. only then, content-addressed objects the tree no longer holds (none that an unexpired
///    catalog names: the publisher keeps those), and public copies of bundles turned entitled.
///
/// Each object is one PUT, which S3 makes visible whole or not at all.
public enum TreeUploader {
    public static let immutableCacheControl = "public, max-age=31536000, immutable"
    public static let privateCacheControl = "private, max-age=31536000, immutable"
    public static let mutableCacheControl = "no-cache"
    static let probeName = ".corpusd-private-probe"

    public static func upload(tree: String, to publicLocation: S3Location, private privateLocation: S3Location?, client: S3Client,
                              progress: (TreeUploadProgress) -> Void = { _ in }) async throws(ObjectStoreError) -> TreeUploadSummary {
        let inventory = try TreeInventory.read(tree: tree)
        let entitled = inventory.files.filter(\.entitled).map(\.path)
        if !entitled.isEmpty {
            guard let privateLocation else { throw .privateLocationMissing(files: entitled) }
            try checkApart(privateLocation, from: publicLocation)
        }
        try await checkNotBehind(inventory.pointer, location: publicLocation, client: client)
        if let privateLocation, !entitled.isEmpty { try await checkPrivate(privateLocation, client: client) }

        var summary = TreeUploadSummary(catalogVersion: inventory.pointer.version, unreferenced: inventory.unreferenced)
        var expected: [S3Location: Set<String>] = [publicLocation: []]
        for file in inventory.files {
            let location = file.entitled ? privateLocation! : publicLocation
            let key = location.key(for: file.path)
            expected[location, default: []].insert(key)
            let local = "\(tree)/\(file.path)"
            let hashed = try promisedDigest(file, local: local)
            let sha = hashed.sha256
            if file.role < .mutable, let info = try await client.head(bucket: location.bucket, key: key), info.size == hashed.size, info.sha256 == sha {
                summary.present.append(key)
                progress(.present(key: key))
                continue
            }
            progress(.uploading(key: key, bytes: hashed.size))
            try await client.put(bucket: location.bucket, key: key, file: local, sha256: sha, contentType: contentType(file.path),
                           cacheControl: cacheControl(file))
            summary.uploaded.append(key)
            summary.uploadedBytes += hashed.size
        }
        // The pointer is in place: nothing a reader can reach from it is removed below.
        for (location, keep) in expected.sorted(by: { $0.key.description < $1.key.description }) {
            for object in try await client.list(bucket: location.bucket, prefix: location.listPrefix) {
                guard let path = location.treePath(ofKey: object.key), !keep.contains(object.key),
                      TreeInventory.role(of: path) == .contentAddressed else { continue }
                try await client.delete(bucket: location.bucket, key: object.key)
                summary.deleted.append(object.key)
                progress(.deleted(key: object.key))
            }
        }
        return summary
    }

    /// The SHA-256 a file's object must have, and its size. A content-addressed file is named by
    /// it, so its bytes are read once, as they are sent (`S3Client.put` checks them); any other is
    /// hashed first (they are small).
    static func promisedDigest(_ file: TreeInventory.File, local: String) throws(ObjectStoreError) -> (sha256: String, size: Int64) {
        if file.role == .contentAddressed {
            let name = file.path.split(separator: "/").last.map(String.init) ?? file.path
            guard let size = FileIO.fileSize(local) else { throw .localFile(path: local, reason: String(cString: strerror(errno))) }
            return (String(name.prefix(64)), size)
        }
        do {
            let hashed = try SHA256.hash(fileAt: local)
            return (Hex.encode(hashed.digest), hashed.size)
        } catch { throw .localFile(path: local, reason: "\(error)") }
    }

    static func cacheControl(_ file: TreeInventory.File) -> String {
        if file.entitled { return privateCacheControl }
        return file.role < .mutable ? immutableCacheControl : mutableCacheControl
    }

    static func contentType(_ path: String) -> String { TreeLayout.contentType(of: path) }

    /// The private location may not be the public one or lie inside it.
    static func checkApart(_ privateLocation: S3Location, from publicLocation: S3Location) throws(ObjectStoreError) {
        guard privateLocation.bucket == publicLocation.bucket else { return }
        if publicLocation.prefix.isEmpty || privateLocation.prefix == publicLocation.prefix
            || privateLocation.listPrefix.hasPrefix(publicLocation.listPrefix) {
            throw .privateInsidePublic(private: privateLocation.description, public: publicLocation.description)
        }
    }

    /// Refuses to put an older catalog, or another catalog, over what the bucket already serves:
    /// its clients would refuse the rollback (or the other catalog's signature) and be stuck.
    static func checkNotBehind(_ pointer: CatalogPointer, location: S3Location, client: S3Client) async throws(ObjectStoreError) {
        guard let data = try await client.get(bucket: location.bucket, key: location.key(for: TreeLayout.pointer), maxBytes: 64 << 10),
              let there = try? JSONDecoder().decode(CatalogPointer.self, from: data) else { return }
        if there.id != pointer.id || there.version > pointer.version {
            throw .bucketAhead(location: location.description, bucketCatalog: there.id, bucketVersion: there.version,
                               treeCatalog: pointer.id, treeVersion: pointer.version)
        }
    }

    /// Before any entitled byte is written: a probe object in the private location must be
    /// refused to an anonymous reader.
    static func checkPrivate(_ location: S3Location, client: S3Client) async throws(ObjectStoreError) {
        // In the temporary folder, not in the tree, which may be read-only (a mounted build output).
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("corpusd-private-probe-\(getpid())-\(UInt32.random(in: .min ... .max))").path
        let content = Data("corpusd private-location probe\n".utf8)
        guard FileManager.default.createFile(atPath: probe, contents: content) else {
            throw .localFile(path: probe, reason: "it could not be created (the probe object that checks the private location; set TMPDIR to a writable folder)")
        }
        defer { FileIO.remove(probe) }
        let key = location.key(for: probeName)
        try await client.put(bucket: location.bucket, key: key, file: probe, sha256: SHA256.hex(content), contentType: "text/plain", cacheControl: "no-store")
        let status = try await client.anonymousStatus(bucket: location.bucket, key: key)
        try await client.delete(bucket: location.bucket, key: key)
        if (200..<300).contains(status) { throw .privateLocationPublic(location: location.description) }
    }
}
