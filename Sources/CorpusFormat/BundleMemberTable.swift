import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The member-table rules of a corpus bundle (or another signed zip of the same shape, such as an
/// embedder artifact): which names may appear, and in what form.
///
/// Checked on the raw central directory before any byte of content is read. Names are never
/// used as paths (extraction writes the allowlisted constants), but a bundle carrying a hostile
/// name is refused outright so that it cannot reach a tool that would trust it.
enum BundleMemberTable {
    /// Returns the position of each allowlisted member in the central directory, or throws the
    /// first refusal in directory order: unsafe name, symlink, not allowed, duplicate; then
    /// anything missing (a missing signature is reported as `signatureMissing`).
    /// `allowed` and `signature` default to the corpus bundle's; embedder artifacts pass their own.
    static func validate(_ entries: [ZipCentralDirectory.Entry], allowed: [String] = BundleLayout.allMembers,
                         signature: String = BundleLayout.signature) throws -> [String: Int] {
        var positions: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let shown = String(decoding: entry.name, as: UTF8.self)
            guard isSafe(entry.name) else { throw FormatError.unsafeMemberName(shown) }
            if entry.hostSystem == 3 {
                let type = mode_t(entry.externalAttributes >> 16) & S_IFMT
                if type == S_IFLNK { throw FormatError.symlinkMember(shown) }
                // Zero means "no Unix mode recorded"; anything else must be a regular file.
                guard type == 0 || type == S_IFREG else { throw FormatError.memberNotAllowed(shown) }
            }
            guard allowed.contains(shown) else { throw FormatError.memberNotAllowed(shown) }
            guard positions[shown] == nil else { throw FormatError.duplicateMember(shown) }
            // Bit 0 is traditional encryption, bit 6 strong encryption: content we could not verify.
            guard entry.flags & 0x41 == 0 else {
                throw FormatError.unsupported(what: "bundle member \(shown)", reason: "it is encrypted")
            }
            positions[shown] = index
        }
        for name in allowed where positions[name] == nil {
            if name == signature { throw FormatError.signatureMissing(file: signature) }
            throw FormatError.missingMember(name)
        }
        return positions
    }

    /// No absolute names, no `..`, no backslashes, no NUL or other control bytes, nothing empty.
    static func isSafe(_ name: [UInt8]) -> Bool {
        guard !name.isEmpty, name[0] != UInt8(ascii: "/") else { return false }
        for b in name where b < 0x20 || b == 0x7f || b == UInt8(ascii: "\\") { return false }
        return !String(decoding: name, as: UTF8.self).contains("..")
    }
}
