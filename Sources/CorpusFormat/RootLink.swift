import Foundation

/// The rule that makes root N+1 trusted given root N (docs/format.md "Root document"), shared by
/// the client's walk, the mirror's copy and the publisher's `root publish`.
///
/// - A format-2 root N+1 needs a threshold of root N's root keys and a threshold of its own root
///   keys (TUF's rule), each key counted once.
/// - A format-1 root N+1 (a single-key tree's rotation) needs root N's signature, as before roles,
///   in its one signature file: a missing, foreign or invalid signature is refused as such
///   (`FormatError.signatureMissing`, `.untrustedKey`, `.signatureInvalid`), as it always was.
/// - Once a tree is in format 2 it stays there: a format-1 root after it is refused.
public enum RootLink {
    /// Why a root document is not the next trusted root.
    public enum Refusal: Error, Equatable, Sendable {
        case wrongVersion(expected: Int, found: Int)
        case formatDowngrade(from: Int, to: Int)
        /// `valid` of the root keys of root `keysOf` signed, `threshold` are needed; `missing`
        /// names the key ids that did not.
        case thresholdNotMet(keysOf: Int, valid: Int, threshold: Int, missing: [String])
    }

    /// The tree paths of the signatures that can count for `next`: the legacy single file for a
    /// format-1 document, else one file per root key of `previous` and of `next`.
    public static func signaturePaths(of next: RootRoles, previous: RootRoles?) -> [String] {
        guard next.format >= 2 else { return [TreeLayout.rootKeyPath(version: next.version) + TreeLayout.signatureSuffix] }
        return signerIDs(of: next, previous: previous).map { TreeLayout.rootSignaturePath(version: next.version, signer: $0) }
    }

    /// The root keys whose signatures can count for `next`, previous root's first, each once.
    public static func signerIDs(of next: RootRoles, previous: RootRoles?) -> [KeyID] {
        var ids: [KeyID] = []
        for id in (previous?.role(.root).keyIDs ?? []) + next.role(.root).keyIDs where !ids.contains(id) { ids.append(id) }
        return ids
    }

    /// Checks `next` (already parsed from the bytes `json`) against `previous` (nil: root 1, which
    /// signs itself) with the signature files offered, and returns the key ids whose signatures counted.
    /// Throws a `Refusal`, or for a format-1 document the `FormatError` of its one signature.
    @discardableResult
    public static func verify(_ next: RootRoles, json: Data, signatures: [Data], previous: RootRoles?) throws -> Set<KeyID> {
        let expected = (previous?.version ?? 0) + 1
        guard next.version == expected else { throw Refusal.wrongVersion(expected: expected, found: next.version) }
        let signer = previous ?? next
        if signer.format > next.format { throw Refusal.formatDowngrade(from: signer.format, to: next.format) }
        if next.format == 1 { return [try legacySigner(signatures, json: json, by: signer, version: next.version)] }
        var counted = try count(signatures, json: json, by: signer)
        if next.format >= 2 { counted.formUnion(try count(signatures, json: json, by: next)) }
        return counted
    }

    /// The one signature of a format-1 document, by the previous root's one key.
    private static func legacySigner(_ signatures: [Data], json: Data, by root: RootRoles, version: Int) throws -> KeyID {
        let file = TreeLayout.rootKeyPath(version: version) + TreeLayout.signatureSuffix
        guard let data = signatures.first, !data.isEmpty else { throw FormatError.signatureMissing(file: file) }
        guard let text = String(data: data, encoding: .utf8) else { throw FormatError.malformed(what: file, reason: "not UTF-8 text") }
        let signature = try Signature(text: text)
        guard root.holds(signature.keyID, as: .root), let key = root.keys[signature.keyID] else {
            throw FormatError.untrustedKey(keyID: signature.keyID.description)
        }
        try key.verify(signature, message: json)
        return signature.keyID
    }

    private static func count(_ signatures: [Data], json: Data, by root: RootRoles) throws(Refusal) -> Set<KeyID> {
        let role = root.role(.root)
        let valid = ThresholdSignatures.validSigners(signatures, message: json, allowed: role.keyIDs, keys: root.keys)
        guard valid.count >= role.threshold else {
            throw .thresholdNotMet(keysOf: root.version, valid: valid.count, threshold: role.threshold,
                                   missing: role.keyIDs.filter { !valid.contains($0) }.map(\.description))
        }
        return valid
    }
}

extension RootLink.Refusal: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .wrongVersion(expected, found): return "it says root version \(found), expected \(expected)"
        case let .formatDowngrade(from, to): return "it is format \(to) after a format-\(from) root"
        case let .thresholdNotMet(keysOf, valid, threshold, missing):
            return "\(valid) of root \(keysOf)'s root keys signed it, \(threshold) needed (not signed by \(missing.joined(separator: ", ")))"
        }
    }
}
