import Foundation

/// What a client's log refusal added to its home since `before`, read the way a fork report is
/// checked (docs/format.md "What a client checks"): only `forks/<remote>-<time>/` with its three
/// files may be new, nothing else may change, and the two notes are kept byte for byte.
public struct ForkEvidence {
    /// The paths added since `before`, folders included.
    public let added: Set<String>
    /// True when the only change is one evidence folder of three files for `remote`.
    public let isTheOnlyChange: Bool
    /// The kept notes, nil when not there.
    public let accepted: Data?
    public let served: Data?

    public init(client: IntegrationClient, remote: String = "main", since before: DirectorySnapshot) {
        let after = client.snapshot
        added = Set(after.entries.keys).subtracting(before.entries.keys)
        let files = added.filter { after.entries[$0] != "dir" }
        isTheOnlyChange = files.count == 3 && added.allSatisfy { $0 == "forks" || $0.hasPrefix("forks/\(remote)-") }
            && before.entries.allSatisfy { after.entries[$0.key] == $0.value }
        let folder = files.first { $0.hasSuffix("/served-checkpoint") }.map { client.homeDir.url(String($0.dropLast("/served-checkpoint".count))) }
        accepted = folder.flatMap { FileManager.default.contents(atPath: "\($0)/accepted-checkpoint") }
        served = folder.flatMap { FileManager.default.contents(atPath: "\($0)/served-checkpoint") }
    }
}
