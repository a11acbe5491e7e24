import Foundation
import CorpusCLIKit
import CorpusFormat
import CorpusEngine
import CorpusSync

/// `corpus remote add|list|remove`: the catalogs this home knows and the keys pinned for them.
struct RemoteAddCommand: ClientCommand {
    static let mirror = Option.repeatable("--mirror", "URL", "a mirror of the catalog's tree (untrusted)")
    static let storage = Option.repeatable("--storage", "ORIGIN", "an object store (scheme://host[:port]) the origin may redirect downloads to; the token is never sent there")
    static let trust = Option.path("--trust", "ROOT.json|PUB", "the catalog's root: a root document (keys/root-N.json) or its root public key (minisign .pub file)").required()
    static let witness = Option.repeatable("--witness", "PUB", "a witness whose cosignature the catalog's log must carry: its key (name+keyid+base64, "
                                           + "as corpusd witness prints it) or a file holding it")
    static let witnessThreshold = Option.integer("--witness-threshold", "K", in: 1...100, "how many of the --witness keys must cosign (default: all)")
    static let channel = Option.text("--channel", "NAME", "follow channel NAME besides stable (e.g. beta): the newest version across both is offered")
    static let spec = CommandSpec(["remote", "add"], "add a catalog and pin its root key",
                                  positionals: .exactly("NAME", "URL"), options: [mirror, storage, trust, witness, witnessThreshold, channel])

    let context: ClientContext

    func run() throws -> Int32 {
        let name = cmd.positionals[0], url = cmd.positionals[1]
        let anchor = try Self.anchor(cmd.required(Self.trust))
        let witnesses = cmd.values(Self.witness).map(Self.witnessKey)
        let channel = try Remote.channelSetting(cmd.value(Self.channel))
        let remote = try client.addRemote(name: name, url: url, mirrors: cmd.values(Self.mirror), storage: cmd.values(Self.storage), anchor: anchor,
                                          witnesses: witnesses, witnessThreshold: cmd.int(Self.witnessThreshold), channel: channel)
        let root = try remote.pinnedRoot()
        let keyID = try remote.pinnedKey().keyID
        let pinned = remote.rootDocument == nil ? "pinned key \(keyID)"
            : "pinned root \(root.version) (\(root.roles.role(.root).threshold) of \(root.roles.role(.root).keyIDs.count) root keys)"
        if console.json {
            console.emit(Added(remote: .init(name: remote.name, url: remote.url, mirrors: remote.mirrors, keyID: keyID.description)))
        } else {
            console.info("added \(remote.name) → \(remote.url), \(pinned)" +
                         (remote.mirrors.isEmpty ? "" : " (\(remote.mirrors.count) mirror\(remote.mirrors.count == 1 ? "" : "s"))") +
                         (remote.channel.map { ", following channel \($0) and stable" } ?? ""))
            console.info("next: corpus catalog")
        }
        return 0
    }

    /// A `--witness` value: a verifier key as given, or the first line of the file it names.
    static func witnessKey(_ value: String) -> String {
        guard !value.contains("+"), let data = FileManager.default.contents(atPath: value) else { return value }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }

    /// A `--trust` file: a root document when it is a JSON object, else a minisign public key.
    static func anchor(_ path: String) throws -> TrustAnchor {
        guard let data = FileManager.default.contents(atPath: path) else { return .key(try PublicKey(contentsOf: path)) }
        if data.first(where: { ![0x20, 0x09, 0x0a, 0x0d].contains($0) }) == UInt8(ascii: "{") { return .rootDocument(data) }
        return .key(try PublicKey(contentsOf: path))
    }

    /// `{"remote": {"name", "url", "mirrors", "key_id"}}`
    struct Added: Encodable {
        struct Remote: Encodable {
            let name: String
            let url: String
            let mirrors: [String]
            let keyID: String

            enum CodingKeys: String, CodingKey {
                case name, url, mirrors
                case keyID = "key_id"
            }
        }

        let remote: Remote
    }
}

struct RemoteListCommand: ClientCommand {
    static let spec = CommandSpec(["remote", "list"], "show the configured catalogs")

    let context: ClientContext

    func run() throws -> Int32 {
        let remotes = try client.config().remotes
        if console.json {
            console.emit(Listing(remotes: remotes.map { .init(name: $0.name, url: URLUserInfo.redacted($0.url), mirrors: $0.mirrors.map(URLUserInfo.redacted)) }))
            return 0
        }
        if remotes.isEmpty { console.info("no catalogs; add one with: corpus remote add NAME URL --trust KEY.pub") }
        // A configuration written before URLs with credentials were refused (or by hand) never shows them.
        for r in remotes {
            let mirrors = r.mirrors.map(URLUserInfo.redacted)
            console.out("\(r.name)\t\(URLUserInfo.redacted(r.url))\(mirrors.isEmpty ? "" : "\tmirrors: " + mirrors.joined(separator: ", "))")
        }
        return 0
    }

    /// `{"remotes": [{"name", "url", "mirrors"}]}`
    struct Listing: Encodable {
        struct Remote: Encodable {
            let name: String
            let url: String
            let mirrors: [String]
        }

        let remotes: [Remote]
    }
}

struct RemoteRemoveCommand: ClientCommand {
    static let spec = CommandSpec(["remote", "remove"], "forget a catalog (installed corpora stay)", positionals: .exactly("NAME"))

    let context: ClientContext

    func run() throws -> Int32 {
        try client.removeRemote(name: cmd.positionals[0])
        if console.json { console.emit(Removed(removed: cmd.positionals[0])) } else { console.info("removed catalog \(cmd.positionals[0])") }
        return 0
    }

    /// `{"removed": NAME}`
    struct Removed: Encodable {
        let removed: String
    }
}
