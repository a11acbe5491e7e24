import CorpusFormat
import Foundation

/// `HOME/install-id`: 32 random bytes (64 hex digits) made the first time a catalog holds a
/// rollout, and never again: every rollout bucket of this home derives from it (`RolloutBucket`),
/// so a client's place in a rollout is the same on every check (Sparkle#1736 redrew it each time).
/// It never leaves the machine; no request carries it.
enum InstallID {
    static let hexLength = 64

    /// The home's install id, nil before one was made; a file that is not 64 hex digits is damaged.
    static func read(_ home: HomeLayout) throws -> String? {
        guard let data = FileManager.default.contents(atPath: home.installID) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == hexLength, text.utf8.allSatisfy(Hex.isLowerDigit) else {
            throw SyncError.localFileDamaged(path: home.installID, reason: "it is not 64 lower-case hex digits (remove it and a new one is made; this home's rollout places are then drawn anew)")
        }
        return text
    }

    /// The home's install id, made now if there is none. Made in a temporary file and linked into
    /// place, which fails when another process made one first: then that one is read, so two
    /// processes starting together still agree.
    static func readOrCreate(_ home: HomeLayout) throws -> String {
        if let id = try read(home) { return id }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let tmp = FileIO.temporarySibling(of: home.installID)
        do {
            try FileIO.createDirectory(home.root)
            try FileIO.writeNew(Data((Hex.encode(bytes) + "\n").utf8), to: tmp)
        } catch let e as FormatError {
            throw SyncError.from(e)
        }
        defer { FileIO.remove(tmp) }
        if link(tmp, home.installID) != 0, errno != EEXIST {
            throw SyncError.from(FormatError.io(operation: "link", path: home.installID, errno: errno))
        }
        FileIO.syncDirectory(home.root)
        guard let id = try read(home) else { throw SyncError.from(FormatError.io(operation: "read", path: home.installID, errno: ENOENT)) }
        return id
    }
}
