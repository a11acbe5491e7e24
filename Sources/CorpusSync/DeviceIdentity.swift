import CorpusFormat
import Foundation

/// The device's age X25519 identity (`HomeLayout.identity`), in the file format `age-keygen`
/// writes, so `age -d -i` reads it: comment lines, then `AGE-SECRET-KEY-1…`. Made once, mode 600,
/// when the first remote is added, so no later install (and no refusal) has to write it.
public enum DeviceIdentity {
    /// The identity, made now when the home has none.
    @discardableResult
    public static func ensure(_ home: HomeLayout) throws -> AgeX25519Identity {
        if let existing = try load(home) { return existing }
        let identity: AgeX25519Identity
        do { identity = try AgeX25519Identity.generate() } catch { throw SyncError.carrying(error, what: "a device identity") }
        let text = "# created: \(Timestamp.format(Date()))\n# public key: \(identity.recipient.encoded)\n\(identity.encoded)\n"
        do {
            try FileIO.createDirectory(home.root)
            try FileIO.writeNew(Data(text.utf8), to: home.identity, mode: 0o600)
        } catch let e as FormatError {
            // Another process made it first: theirs is the identity.
            if case let .io(_, _, code) = e, code == EEXIST, let theirs = try load(home) { return theirs }
            throw SyncError.from(e)
        }
        return identity
    }

    /// The identity, or nil when the home has none; a file that holds no single identity is damaged.
    public static func load(_ home: HomeLayout) throws -> AgeX25519Identity? {
        guard let data = FileManager.default.contents(atPath: home.identity) else { return nil }
        let keys = String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard keys.count == 1, let identity = try? AgeX25519Identity(encoded: keys[0]) else {
            throw SyncError.localFileDamaged(path: home.identity, reason: "it does not hold one AGE-SECRET-KEY-1 identity")
        }
        return identity
    }
}
