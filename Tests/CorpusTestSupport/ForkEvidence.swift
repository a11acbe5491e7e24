import Foundation

/// What a client's log refusal added to its home since `before`, read the way a fork report is
/// checked (docs/format.md "What a client checks"): only `forks/<remote>-<time>/` with its three
/// files may be new, nothing else may change, and the two notes are kept byte for byte.
public struct ForkEvidence {
    /// The files added, changed or removed since `before`.
    public let added: Set<String>
    /// True when the only change is one evidence folder of three files for `remote` (and, with
    /// `pendingKept`, the remote's pending checkpoint, kept by the same refresh).
    public let isTheOnlyChange: Bool
    /// The kept notes, nil when not there: the accepted or the pending one, and the served one.
    public let accepted: Data?
    public let pending: Data?
    public let served: Data?
    /// `source.txt`: where each note came from.
    public let source: String?

    public init(client: IntegrationClient, remote: String = "main", since before: DirectorySnapshot, pendingKept: Bool = false) {
        let files = client.snapshot.changedFiles(since: before)
        added = files
        let evidence = files.filter { $0.hasPrefix("forks/\(remote)-") }
        let allowed: Set<String> = pendingKept ? ["state/\(remote)/pending-checkpoint", "state/\(remote)/pending-source"] : []
        isTheOnlyChange = evidence.count == 3 && files.subtracting(evidence).isSubset(of: allowed)
        let folder = evidence.first { $0.hasSuffix("/served-checkpoint") }.map { client.homeDir.url(String($0.dropLast("/served-checkpoint".count))) }
        accepted = folder.flatMap { FileManager.default.contents(atPath: "\($0)/accepted-checkpoint") }
        pending = folder.flatMap { FileManager.default.contents(atPath: "\($0)/pending-checkpoint") }
        served = folder.flatMap { FileManager.default.contents(atPath: "\($0)/served-checkpoint") }
        source = folder.flatMap { FileManager.default.contents(atPath: "\($0)/source.txt") }.map { String(decoding: $0, as: UTF8.self) }
    }
}
