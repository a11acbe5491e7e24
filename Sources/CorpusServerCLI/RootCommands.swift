import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusPublisher

/// `corpusd root draft --out FILE [--from PUBLIC_DIR] --root-key PUB… --root-threshold K --catalog-key PUB…
/// [--catalog-threshold K] --timestamp-key PUB… [--expires DURATION]`
struct RootDraftCommand: ServerCommand {
    static let out = Option.path("--out", "FILE", "the draft to write (it must not exist)").required()
    static let from = Option.path("--from", "PUBLIC_DIR", "the tree whose next root this is (without it: root 1 of a new tree)")
    static let rootKey = Option.repeatable("--root-key", "PUB", accepts: .path, "a root holder's public key (repeat for each)").required()
    static let rootThreshold = Option.integer("--root-threshold", "K", in: 1...RootDocument.maxKeys, "how many root keys must sign a root").required()
    static let catalogKey = Option.repeatable("--catalog-key", "PUB", accepts: .path, "a public key that may sign catalogs and bundles (repeat for each)").required()
    static let catalogThreshold = Option.integer("--catalog-threshold", "K", in: 1...RootDocument.maxKeys, "how many catalog keys must sign (1, the default, in this release)")
    static let timestampKey = Option.repeatable("--timestamp-key", "PUB", accepts: .path, "a public key that may sign timestamp.json (repeat for each)").required()
    static let expires = Option.duration("--expires", .rootExpiry, "root lifetime, like 180d, 365d or 52w (default: 365d)")
    static let spec = CommandSpec(["root", "draft"], "write the next root document of a tree, unsigned, for its root holders to sign",
                                  options: [out, from, rootKey, rootThreshold, catalogKey, catalogThreshold, timestampKey, expires])

    let context: ServerContext

    func run() throws -> Int32 {
        func keys(_ option: Option) throws -> [PublicKey] { try cmd.values(option).map { try PublicKey(contentsOf: $0) } }
        let out = try cmd.required(Self.out)
        let draft = try RootCeremony.draft(
            from: cmd.value(Self.from),
            root: .init(keys: try keys(Self.rootKey), threshold: cmd.int(Self.rootThreshold) ?? 1),
            catalog: .init(keys: try keys(Self.catalogKey), threshold: cmd.int(Self.catalogThreshold) ?? 1),
            timestamp: .init(keys: try keys(Self.timestampKey), threshold: 1),
            expiresIn: cmd.duration(Self.expires) ?? RootCeremony.defaultExpiry, out: out)
        let doc = draft.document
        let own = doc.roles[RootRole.root.rawValue]!
        let previous = draft.previous.map { p in Drafted.Needs(rootVersion: p.version, threshold: p.role(.root).threshold, keys: p.role(.root).keyIDs.map(\.description)) }
        let needs = [previous, Drafted.Needs(rootVersion: doc.version, threshold: own.threshold, keys: own.keys)].compactMap { $0 }
        if console.json {
            console.emit(Drafted(path: out, rootVersion: doc.version, expires: doc.expires, needs: needs))
        } else {
            console.info("wrote \(out): root \(doc.version), unsigned, expires \(doc.expires)")
            for n in needs { console.info("needs \(n.threshold) of root \(n.rootVersion)'s root keys: \(n.keys.joined(separator: ", "))") }
            console.info("next: each holder runs corpusd root sign \(out) --key THEIR.key, then corpusd root publish \(out) --out PUBLIC_DIR")
        }
        return 0
    }

    /// `{"path", "root_version", "expires", "needs": [{"root_version", "threshold", "keys"}]}`
    struct Drafted: Encodable {
        struct Needs: Encodable {
            let rootVersion: Int
            let threshold: Int
            let keys: [String]

            enum CodingKeys: String, CodingKey {
                case threshold, keys
                case rootVersion = "root_version"
            }
        }

        let path: String
        let rootVersion: Int
        let expires: String
        let needs: [Needs]

        enum CodingKeys: String, CodingKey {
            case path, expires, needs
            case rootVersion = "root_version"
        }
    }
}

/// `corpusd root sign FILE --key KEY`
struct RootSignCommand: ServerCommand {
    static let key = Option.path("--key", "KEY", "your root secret key (of this root or the one before it)").required()
    static let spec = CommandSpec(["root", "sign"], "add your signature of a root draft beside it, as FILE.<KEYID>.minisig",
                                  positionals: .exactly("FILE").completing(.files), options: [key])

    let context: ServerContext

    func run() throws -> Int32 {
        let key = try SecretKey(contentsOf: cmd.required(Self.key))
        let signed = try RootCeremony.sign(draft: cmd.positionals[0], key: key)
        if console.json {
            console.emit(SignedOut(signed))
        } else {
            console.info("wrote \(signed.path): key \(signed.keyID) signed root \(signed.version)")
            console.info(signed.isRootKey
                ? "key \(signed.keyID) is a root key of root \(signed.version)"
                : "key \(signed.keyID) is not a root key of root \(signed.version): its signature counts only if it is a root key of root \(signed.version - 1)")
        }
        return 0
    }

    /// `{"path", "root_version", "key_id", "root_key"}`
    struct SignedOut: Encodable {
        let path: String
        let rootVersion: Int
        let keyID: String
        let rootKey: Bool

        init(_ s: RootCeremony.Signed) {
            path = s.path
            rootVersion = s.version
            keyID = s.keyID
            rootKey = s.isRootKey
        }

        enum CodingKeys: String, CodingKey {
            case path
            case rootVersion = "root_version"
            case keyID = "key_id"
            case rootKey = "root_key"
        }
    }
}

/// `corpusd root publish FILE --out PUBLIC_DIR`
struct RootPublishCommand: ServerCommand {
    static let out = Option.path("--out", "PUBLIC_DIR", "the published tree").required()
    static let spec = CommandSpec(["root", "publish"], "install a signed root draft as the tree's next root, once both thresholds of root keys signed",
                                  positionals: .exactly("FILE").completing(.files), options: [out])

    let context: ServerContext

    func run() throws -> Int32 {
        let out = try cmd.required(Self.out)
        let published = try RootCeremony.publish(draft: cmd.positionals[0], tree: out)
        if console.json {
            console.emit(Installed(rootVersion: published.version, signers: published.signers, removedPublicKey: published.removedPublicKey))
        } else {
            console.info("installed \(out)/\(TreeLayout.rootKeyPath(version: published.version)) with \(published.signers.count) signature(s): \(published.signers.joined(separator: ", "))")
            if published.removedPublicKey { console.info("removed \(out)/\(RootKeyChain.publicKeyPath): clients pin a root document now") }
            console.info("next: corpusd publish CATALOG_DIR --out \(out) --key CATALOG_KEY --timestamp-key TIMESTAMP_KEY (catalogs and timestamps signed by keys of root \(published.version))")
        }
        return 0
    }

    /// `{"root_version", "signers", "removed_root_pub"}`
    struct Installed: Encodable {
        let rootVersion: Int
        let signers: [String]
        let removedPublicKey: Bool

        enum CodingKeys: String, CodingKey {
            case signers
            case rootVersion = "root_version"
            case removedPublicKey = "removed_root_pub"
        }
    }
}
