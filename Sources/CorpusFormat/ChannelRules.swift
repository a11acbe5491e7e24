import Foundation

/// What a catalog may list under one corpus id (docs/format.md "Channels and rollouts"): entries on
/// named channels (`stable` when unnamed), and per channel its current version and at most one
/// newer version carrying a rollout. The signed catalog and the publisher's `catalog.json` are
/// checked by the same rule, so a publisher is told before publishing what every client would refuse.
public enum ChannelRules {
    /// The channel an entry without one is on.
    public static let defaultChannel = "stable"

    /// One entry as the rule sees it.
    public struct Listing: Sendable {
        public var id: String
        public var channel: String?
        public var version: CorpusVersion
        public var rollout: Rollout?
        /// The content digest, when known (the signed catalog); a version listed twice must agree.
        public var content: SHA256Digest?

        public init(id: String, channel: String?, version: CorpusVersion, rollout: Rollout?, content: SHA256Digest? = nil) {
            self.id = id
            self.channel = channel
            self.version = version
            self.rollout = rollout
            self.content = content
        }
    }

    /// The first broken rule among `listings`, as a sentence naming the corpus, channel and versions; nil when they hold.
    public static func problem(_ listings: [Listing]) -> String? {
        for l in listings {
            if let channel = l.channel, !Identifier.isValid(channel) {
                return "corpus \(l.id) names channel \(channel.debugDescription), which is not a valid channel name (letters, digits, '-', '_', '.')"
            }
            if let r = l.rollout {
                guard r.startDate != nil else { return "corpus \(l.id) \(l.version): rollout start \(r.start.debugDescription) is not a time like 2026-01-31T12:00:00Z" }
                guard r.seconds != nil else { return "corpus \(l.id) \(l.version): rollout duration \(r.duration.debugDescription) is not a duration like 90m, 48h or 7d" }
            }
        }
        var byID: [String: [Listing]] = [:]
        var order: [String] = []
        for l in listings {
            if byID[l.id] == nil { order.append(l.id) }
            byID[l.id, default: []].append(l)
        }
        for id in order {
            let entries = byID[id]!
            var byChannel: [String: [Listing]] = [:]
            for l in entries { byChannel[l.channelName, default: []].append(l) }
            for (channel, list) in byChannel.sorted(by: { $0.key < $1.key }) where list.count > 1 {
                let versions = list.map(\.version.description).joined(separator: ", ")
                guard list.count == 2 else {
                    return "corpus \(id) lists \(list.count) entries on channel \(channel) (\(versions)); a channel holds its current version and at most one newer version with a rollout"
                }
                let rolling = list.filter { $0.rollout != nil }
                guard rolling.count == 1 else {
                    return rolling.isEmpty
                        ? "corpus \(id) lists two current versions on channel \(channel) (\(versions)); give the newer one a \"rollout\" or remove the older"
                        : "corpus \(id) lists two versions with a rollout on channel \(channel) (\(versions)); one rollout at a time per channel"
                }
                let current = list.first { $0.rollout == nil }!
                guard rolling[0].version > current.version else {
                    return "corpus \(id) on channel \(channel): the version with a rollout (\(rolling[0].version)) is not newer than the current one (\(current.version))"
                }
            }
            // One version, one content, whatever channels list it: a client switching channels
            // must never find the same version meaning two things.
            var contentByVersion: [CorpusVersion: SHA256Digest] = [:]
            for l in entries {
                guard let content = l.content else { continue }
                if let seen = contentByVersion[l.version], seen != content {
                    return "corpus \(id) lists version \(l.version) twice with different content; a version names one content on every channel"
                }
                contentByVersion[l.version] = content
            }
        }
        return nil
    }
}
