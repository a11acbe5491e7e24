import CorpusEngine
import CorpusFormat
import Foundation

/// The room an install needs on the home's volume once its bundle is downloaded: every member
/// unpacked, and for a pack that ships without its full-text index (`Manifest.index == .install`)
/// what building that index adds to the pack (`PackIndexer`).
///
/// The index build grows the pack file, never shrinks it (SQLite keeps the pages `optimize` frees
/// as free pages), so its peak is the final file. Measured with `corpusd build --index install`
/// then `corpus import` (docs/client.md "Free space"), the growth over the shipped pack was: 0 for
/// the three sample corpora of `catalog/` (13-18 KB bundles: the index fits in the pages the pack
/// already has), 0.37 for the common licences, 0.39 for docs/, 0.88 for 1.9 MB of Debian
/// `copyright` files, 0.63 for 18 MB of them, 0.64 for 20 MB of generated Zipf-distributed words,
/// 0.45 to 1.01 for the test suite's generated notes (100 to 300 files). Text of random hex tokens,
/// every word new, grew by 2.39: no ratio bounds every corpus, so the build's own "disk full" is
/// reported as such too (`Installer`), naming the room the largest growth measured would need.
enum InstallSpace {
    /// Bytes the install writes in `staging/` for a bundle with this manifest.
    static func needed(for manifest: Manifest) -> Int64 {
        let unpacked = manifest.members.values.reduce(Int64(0)) { $0 + $1.size }
        return unpacked + indexBuild(for: manifest)
    }

    /// What an install that filled the volume anyway is said to need: the members unpacked and 2.5
    /// times the shipped pack for its index, above the largest growth measured (2.39, random tokens).
    static func largest(for manifest: Manifest) -> Int64 {
        let unpacked = manifest.members.values.reduce(Int64(0)) { $0 + $1.size }
        guard manifest.index == .install, let pack = manifest.members[BundleLayout.pack]?.size else { return unpacked }
        return unpacked + pack * 2 + pack / 2
    }

    /// What building the index adds to the pack, counted as 1.25 times the shipped pack (a quarter
    /// above the largest growth measured on words, 1.01); 0 when the pack ships with its index.
    static func indexBuild(for manifest: Manifest) -> Int64 {
        guard manifest.index == .install, let pack = manifest.members[BundleLayout.pack]?.size else { return 0 }
        return pack + pack / 4
    }
}
