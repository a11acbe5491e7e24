import Testing
import Foundation
import CorpusFormat
import CorpusPublisher

/// Stable rows across versions (docs/format.md "Stable rows"): passages that stay keep their row,
/// added ones fill the holes of removed ones from the lowest up, and only when the corpus shrinks do
/// passages past the new end move down; documents keep their ids the same way.
@Suite struct RowLayoutTests {
    static let previous = RowLayout(rows: ["a": 0, "b": 1, "c": 2, "d": 3], documents: ["x.md": 1, "y.md": 2, "z.md": 3])

    @Test(arguments: [
        // Nothing changed: every row stays.
        (["a", "b", "c", "d"], [0, 1, 2, 3]),
        // Order in the build does not matter; rows follow the ids.
        (["d", "c", "b", "a"], [3, 2, 1, 0]),
        // b removed, e added: e takes b's row.
        (["a", "c", "d", "e"], [0, 2, 3, 1]),
        // Two added past the end.
        (["a", "b", "c", "d", "e", "f"], [0, 1, 2, 3, 4, 5]),
        // Shrinking: b and c removed, d (row 3) moves into the lowest hole.
        (["a", "d"], [0, 1]),
        // a removed, e added: e takes row 0.
        (["e", "b", "c"], [0, 1, 2]),
        // Shrinking with an addition: d (row 3) and e take the holes 0 and 2, in build order.
        (["b", "d", "e"], [1, 0, 2]),
    ])
    func passagesKeepTheirRows(pids: [String], rows: [Int]) {
        #expect(Self.previous.assign(paths: [], pids: pids).rows == rows)
    }

    @Test func documentsKeepTheirIdsAndNewOnesTakeTheFreeOnes() {
        let (ids, _) = Self.previous.assign(paths: ["w.md", "x.md", "z.md"], pids: [])
        #expect(ids == [2, 1, 3])
        // Shrinking to one: the kept document past the end moves to id 1.
        #expect(Self.previous.assign(paths: ["z.md"], pids: []).documentIDs == [1])
    }

    @Test func aFreshLayoutNumbersInBuildOrder() {
        let empty = RowLayout(rows: [:], documents: [:])
        let (ids, rows) = empty.assign(paths: ["b.md", "a.md"], pids: ["q", "p", "r"])
        #expect(ids == [1, 2] && rows == [0, 1, 2])
    }
}
