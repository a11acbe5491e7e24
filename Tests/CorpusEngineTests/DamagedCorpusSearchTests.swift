import Foundation
import Testing
import CorpusFormat
import CorpusEngine
import CorpusTestSupport

/// security-cases.md: "one installed corpus damaged: the others still search; the damaged one is
/// named". A damaged corpus used to make every search fail.
@Suite struct DamagedCorpusSearchTests {
    /// `main/sea` and `main/fog` installed; returns the home and fog's version folder.
    func home() throws -> (TempDirectory, String) {
        let home = TempDirectory("damaged")
        try PackFixture(id: "sea", remote: "main", texts: ["a.md": ["The harbour lamp burns all night."]]).install(home: home.path)
        let fog = try PackFixture(id: "fog", remote: "main", texts: ["b.md": ["The harbour horn sounds in fog."]]).install(home: home.path)
        return (home, fog)
    }

    @Test(arguments: ["pack header overwritten", "vectors missing"])
    func aDamagedCorpusIsSkippedAndTheOthersAnswer(damage: String) async throws {
        let (home, fog) = try home()
        if damage == "vectors missing" {
            try FileManager.default.removeItem(atPath: "\(fog)/\(BundleLayout.vectors)")
        } else {
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: "\(fog)/\(BundleLayout.pack)"))
            try handle.write(contentsOf: Data(repeating: 0x58, count: 100))
            try handle.close()
        }
        let library = CorpusLibrary(home: home.path)
        let hits = try await library.search("harbour")
        #expect(hits.map(\.corpus) == ["sea"])
    }

    @Test func whenEveryCorpusIsDamagedTheSearchFails() async throws {
        let (home, fog) = try home()
        try FileManager.default.removeItem(atPath: "\(fog)/\(BundleLayout.vectors)")
        let sea = "\(home.path)/corpora/main/sea/versions/1"
        try FileManager.default.removeItem(atPath: "\(sea)/\(BundleLayout.vectors)")
        await #expect(throws: EngineError.self) { try await CorpusLibrary(home: home.path).search("harbour") }
    }
}
