import Foundation
import Testing
@testable import CorpusEngine
import CorpusTestSupport

/// Opening a corpus checks its passages against the manifest (count and ids 0..<passages) at every
/// search; that check must cost a few seeks, not a pass over every passage (issue 17: `corpus
/// search` as a whole process). Counted in SQLite's virtual-machine steps, so nothing is timed.
@Suite struct PackOpenCostTests {
    @Test func passageBoundsAreReadWithoutSteppingEveryPassage() throws {
        let home = TempDirectory("open-cost")
        let many = (0..<3000).map { "Passage \($0) about lamps, boats and the harbour wall." }
        let folder = try PackFixture(id: "sea", texts: ["a.md": many]).install(home: home.path)
        let db = try Database(path: "\(folder)/pack.sqlite", mode: .readOnly)
        let s = try db.prepare(InstalledCorpus.passageBoundsSQL)
        #expect(try s.step())
        #expect(s.int(0) == 3000 && s.int(1) == 0 && s.int(2) == 2999)
        // count(*) alone is one b-tree count and min/max one seek each; one aggregate of all three
        // steps the virtual machine several times per passage (over 10,000 steps here).
        #expect(s.virtualMachineSteps < 100, "\(s.virtualMachineSteps) virtual-machine steps for 3,000 passages")
        // The open still refuses what the check is for (InstalledCorpusTests has the whole table).
        _ = try InstalledCorpus(folder: folder, remote: "local", expectedID: "sea")
    }
}
