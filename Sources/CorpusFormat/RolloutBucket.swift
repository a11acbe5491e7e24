import Foundation

/// A client's place in the rollouts of one corpus: a number in [0, 1) derived from the home's
/// install id and the corpus id, SHA-256(install id ‖ 0x00 ‖ corpus id) read as a fraction.
///
/// Derived, not stored and not drawn: the same home gets the same bucket on every check
/// (Sparkle#1736), different corpora get independent buckets, and the decision is made on the
/// client from what it holds, so neither the publisher nor a mirror learns or chooses which
/// devices receive a version first.
public struct RolloutBucket: Sendable, Hashable {
    public let value: Double

    public init(installID: String, corpusID: String) {
        var input = Array(installID.utf8)
        input.append(0)
        input += Array(corpusID.utf8)
        let digest = SHA256.hash(input)
        // The first 53 bits, the precision of a Double: uniform on [0, 1), never 1.
        let top = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        value = Double(top >> 11) / Double(UInt64(1) << 53)
    }
}
