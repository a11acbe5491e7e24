import Foundation
import CorpusFormat

/// The root-rotation test vectors of `Tests/Fixtures/root-rotations/` (python-tuf's key-rotation
/// matrix, rust-tuf's threshold cases and this project's own), read from their data files and
/// turned into real root documents and minisign signature files. The fixtures' README says where
/// each came from and what every field means.
///
/// Keys are named; a name's key is deterministic (`key(named:)`), so a vector needs no key files.
public struct RootRotationVector: Decodable, Sendable, CustomStringConvertible {
    /// One role as a vector writes it: key names and a threshold.
    public struct Role: Decodable, Sendable {
        public let keys: [String]
        public let threshold: Int
    }

    /// One signature file: `key` signed; it is stored in the file of `storedAs` (default: its own)
    /// and covers the document at position `over` (default: the one it is stored with).
    public struct Signer: Decodable, Sendable {
        public let key: String
        public let storedAs: String?
        public let over: Int?

        public init(from decoder: Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                (key, storedAs, over) = (name, nil, nil)
                return
            }
            enum K: String, CodingKey { case key, storedAs, over }
            let c = try decoder.container(keyedBy: K.self)
            key = try c.decode(String.self, forKey: .key)
            storedAs = try c.decodeIfPresent(String.self, forKey: .storedAs)
            over = try c.decodeIfPresent(Int.self, forKey: .over)
        }
    }

    /// One root version as published at its position in the chain (`keys/root-<position>.json`).
    public struct Root: Decodable, Sendable {
        public let format: Int?
        /// The version the document claims; defaults to its position.
        public let version: Int?
        /// Format 1: the one key that holds every role.
        public let key: String?
        /// Format 2: the roles; `catalog` and `timestamp` default to the file's `online` roles.
        public let root: Role?
        public let catalog: Role?
        public let timestamp: Role?
        /// True: the document expired a day before the walk.
        public let expired: Bool?
        public let signers: [Signer]
    }

    /// Why a vector's chain stops.
    public enum Reason: Decodable, Sendable, Equatable {
        case thresholdNotMet(keysOf: Int, valid: Int, threshold: Int, missing: [String])
        case wrongVersion(expected: Int, found: Int)
        case formatDowngrade(from: Int, to: Int)
        case signatureMissing
        case untrustedKey(key: String)
        case signatureInvalid
        case malformed
        case unsupported
        case expired

        public init(from decoder: Decoder) throws {
            struct Threshold: Decodable { let keysOf, valid, threshold: Int; let missing: [String] }
            struct Version: Decodable { let expected, found: Int }
            struct Format: Decodable { let from, to: Int }
            struct Key: Decodable { let key: String }
            struct Empty: Decodable {}
            enum K: String, CodingKey {
                case thresholdNotMet, wrongVersion, formatDowngrade, signatureMissing, untrustedKey, signatureInvalid, malformed, unsupported, expired
            }
            let c = try decoder.container(keyedBy: K.self)
            guard c.allKeys.count == 1, let kind = c.allKeys.first else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a reason names exactly one kind"))
            }
            switch kind {
            case .thresholdNotMet:
                let t = try c.decode(Threshold.self, forKey: kind)
                self = .thresholdNotMet(keysOf: t.keysOf, valid: t.valid, threshold: t.threshold, missing: t.missing)
            case .wrongVersion:
                let v = try c.decode(Version.self, forKey: kind)
                self = .wrongVersion(expected: v.expected, found: v.found)
            case .formatDowngrade:
                let f = try c.decode(Format.self, forKey: kind)
                self = .formatDowngrade(from: f.from, to: f.to)
            case .untrustedKey: self = .untrustedKey(key: try c.decode(Key.self, forKey: kind).key)
            case .signatureMissing: _ = try c.decode(Empty.self, forKey: kind); self = .signatureMissing
            case .signatureInvalid: _ = try c.decode(Empty.self, forKey: kind); self = .signatureInvalid
            case .malformed: _ = try c.decode(Empty.self, forKey: kind); self = .malformed
            case .unsupported: _ = try c.decode(Empty.self, forKey: kind); self = .unsupported
            case .expired: _ = try c.decode(Empty.self, forKey: kind); self = .expired
            }
        }
    }

    public struct Expectation: Decodable, Sendable {
        /// "accept" or "refuse".
        public let outcome: String
        /// The position whose document is refused.
        public let at: Int?
        /// The version of the newest root whose link verified (0: not even root 1).
        public let trusted: Int
        public let reason: Reason?
        public let why: String

        public var accepts: Bool { outcome == "accept" }
    }

    public let name: String
    public let origin: String?
    public let roots: [Root]
    public let expect: Expectation
    /// The data file it came from (set when loaded).
    public private(set) var file = ""
    private(set) var online: [RootRole: Role] = [:]

    enum CodingKeys: String, CodingKey { case name, origin, roots, expect }

    public var description: String { "\(file): \(name)" }

    // MARK: Loading

    /// The folder of the data files, found from this source file's place in the package.
    public static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/root-rotations")

    /// The data files, one per source.
    public static let files = ["python-tuf-key-rotations.json", "rust-tuf-root-rotation.json", "corpussync-root-rotations.json"]

    /// Every vector of every data file, in file order.
    public static func all() throws -> [RootRotationVector] {
        try files.flatMap { try load($0) }
    }

    public static func load(_ file: String) throws -> [RootRotationVector] {
        struct FileContents: Decodable {
            struct Online: Decodable { let catalog: Role; let timestamp: Role }
            let online: Online
            let vectors: [RootRotationVector]
        }
        let contents = try JSONDecoder().decode(FileContents.self, from: Data(contentsOf: folder.appendingPathComponent(file)))
        return contents.vectors.map {
            var v = $0
            v.file = file
            v.online = [.catalog: contents.online.catalog, .timestamp: contents.online.timestamp]
            return v
        }
    }

    // MARK: Keys

    /// The key of a name: seed = SHA-256(name), key id = the first 8 bytes of SHA-256(seed).
    public static func key(named name: String) throws -> SecretKey {
        let seed = SHA256.hash(Data(name.utf8))
        return try SecretKey(keyID: KeyID(bytes: Array(SHA256.hash(seed).prefix(8))), seed: seed)
    }

    public static func keyID(named name: String) throws -> KeyID { try key(named: name).keyID }

    // MARK: Publishing

    /// One root version as a tree holds it: the document and its signature files, by tree path.
    public struct PublishedRoot: Sendable {
        public let position: Int
        public let path: String
        public let json: Data
        public let signatures: [(path: String, data: Data)]
    }

    /// Builds every root document of the chain and signs it as its `signers` say. Documents are
    /// created a year before `now` and expire a year after it, or a day before it when `expired`.
    public func publish(now: Date) throws -> [PublishedRoot] {
        let documents = try roots.enumerated().map { try document($0.element, position: $0.offset + 1, now: now) }
        return try roots.enumerated().map { index, root in
            let position = index + 1
            let format = root.format ?? 2
            guard format == 2 || root.signers.count <= 1 else { throw VectorError("\(name): a format-1 root has one signature file") }
            var files: [(path: String, data: Data)] = []
            for signer in root.signers {
                let key = try Self.key(named: signer.key)
                let signed = documents[(signer.over ?? position) - 1]
                let version = root.version ?? position
                let comment = format == 1 ? "root:\(version) key:\(key.keyID)" : RootDocument.trustedComment(version: version, signer: key.keyID)
                let path = format == 1
                    ? TreeLayout.rootKeyPath(version: position) + TreeLayout.signatureSuffix
                    : TreeLayout.rootSignaturePath(version: position, signer: try Self.keyID(named: signer.storedAs ?? signer.key))
                files.append((path, Data(try key.sign(signed, trustedComment: comment).fileText.utf8)))
            }
            return PublishedRoot(position: position, path: TreeLayout.rootKeyPath(version: position), json: documents[index], signatures: files)
        }
    }

    /// Writes the vector as a published tree into `folder`: every root document and signature
    /// file, then catalog 1 (no corpora), its pointer and `timestamp.json`, signed by the online
    /// keys of the root the vector ends trusting (root 1 when none), as its publisher would.
    @discardableResult
    public func writeTree(into folder: TempDirectory, catalogID: String, now: Date) throws -> [PublishedRoot] {
        let chain = try publish(now: now)
        for root in chain {
            try folder.write(root.path, root.json)
            for file in root.signatures { try folder.write(file.path, file.data) }
        }
        let signer = chain[max(expect.trusted, 1) - 1]
        let roles = try RootRoles.parse(signer.json, what: signer.path)
        let catalog = Catalog(id: catalogID, title: "Vector \(name)", version: 1, issued: now, expires: now.addingTimeInterval(30 * 86400),
                              rootVersion: roles.version, corpora: [])
        let catalogBytes = try catalog.canonicalBytes()
        let catalogPath = TreeLayout.catalogPath(version: 1)
        try folder.write(catalogPath, catalogBytes)
        try folder.write(catalogPath + TreeLayout.signatureSuffix,
                         try secretKey(roles.role(.catalog).keyIDs[0]).sign(catalogBytes, trustedComment: catalog.trustedComment).fileText)
        try folder.write(TreeLayout.pointer, try CanonicalJSON.encode(CatalogPointer(id: catalogID, version: 1)))
        let stamp = TimestampDocument(version: 1, issued: now, expires: now.addingTimeInterval(86400),
                                      catalog: .init(id: catalogID, version: 1, path: catalogPath, digest: SHA256.digest(catalogBytes),
                                                     size: Int64(catalogBytes.count)))
        let stampBytes = try CanonicalJSON.encode(stamp)
        try folder.write(TreeLayout.timestamp, stampBytes)
        try folder.write(TreeLayout.timestamp + TreeLayout.signatureSuffix,
                         try secretKey(roles.role(.timestamp).keyIDs[0]).sign(stampBytes, trustedComment: stamp.trustedComment).fileText)
        return chain
    }

    /// The files a refused refresh keeps under `folder` (home-relative `trust/<remote>`): for each
    /// valid root after the pinned root 1, its document and the signature files a client fetches
    /// for it (`RootLink.signaturePaths`), with the bytes served.
    public func keptFiles(_ chain: [PublishedRoot], folder: String) throws -> [(path: String, data: Data)] {
        guard expect.trusted >= 2 else { return [] }
        var kept: [(path: String, data: Data)] = []
        for position in 2...expect.trusted {
            let root = chain[position - 1]
            let previous = try RootRoles.parse(chain[position - 2].json, what: chain[position - 2].path)
            let next = try RootRoles.parse(root.json, what: root.path)
            let served = Dictionary(root.signatures.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first })
            kept.append(("\(folder)/root-\(position).json", root.json))
            for path in RootLink.signaturePaths(of: next, previous: previous) {
                if let data = served[path] { kept.append(("\(folder)/\((path as NSString).lastPathComponent)", data)) }
            }
        }
        return kept
    }

    /// Writes what a user pins the vector's tree with (`corpus remote add --trust FILE`) into
    /// `folder`: root 1's document when it is format 2, else its one key's `.pub` file.
    public func writeTrustFile(_ chain: [PublishedRoot], into folder: TempDirectory) throws -> String {
        let roles = try RootRoles.parse(chain[0].json, what: chain[0].path)
        if roles.format >= 2 { return try folder.write("root-1.json", chain[0].json) }
        return try folder.write("root.pub", roles.keys(for: .root)[0].fileText)
    }

    /// The secret key of a key id, among the keys the vector names.
    public func secretKey(_ id: KeyID) throws -> SecretKey {
        var names = Set(online.values.flatMap(\.keys))
        for root in roots {
            names.formUnion((root.root?.keys ?? []) + (root.catalog?.keys ?? []) + (root.timestamp?.keys ?? []) + (root.key.map { [$0] } ?? []))
            names.formUnion(root.signers.map(\.key))
        }
        guard let key = try names.map({ try Self.key(named: $0) }).first(where: { $0.keyID == id }) else {
            throw VectorError("\(name): no key named for id \(id)")
        }
        return key
    }

    private func document(_ root: Root, position: Int, now: Date) throws -> Data {
        let version = root.version ?? position
        let created = now.addingTimeInterval(-365 * 86400)
        switch root.format ?? 2 {
        case 1:
            guard let key = root.key else { throw VectorError("\(name): root \(position) is format 1 without a key") }
            return try CanonicalJSON.encode(RootKeyDocument(version: version, key: try Self.key(named: key).publicKey, created: created))
        case 2:
            guard let rootRole = root.root else { throw VectorError("\(name): root \(position) has no root role") }
            var table: [RootRole: (keys: [PublicKey], threshold: Int)] = [:]
            for (role, spec) in [(RootRole.root, rootRole), (.catalog, root.catalog ?? online[.catalog]!), (.timestamp, root.timestamp ?? online[.timestamp]!)] {
                table[role] = (try spec.keys.map { try Self.key(named: $0).publicKey }, spec.threshold)
            }
            let expires = root.expired == true ? now.addingTimeInterval(-86400) : now.addingTimeInterval(365 * 86400)
            return try CanonicalJSON.encode(RootDocument(version: version, created: created, expires: expires, roles: table))
        case let other:
            throw VectorError("\(name): root \(position) has format \(other)")
        }
    }
}

/// A data file that does not say what the walker needs.
public struct VectorError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
