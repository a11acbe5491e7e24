/// One scored row of a channel: the passage row (`passages.id`) and its similarity.
public struct ScoredRow: Hashable, Sendable {
    public var row: Int32
    public var score: Float

    public init(row: Int32, score: Float) {
        self.row = row
        self.score = score
    }

    /// Higher score first; equal scores by lower row, so results never depend on how a scan was split.
    @inline(__always)
    static func isBetter(_ a: ScoredRow, than b: ScoredRow) -> Bool {
        a.score > b.score || (a.score == b.score && a.row < b.row)
    }
}

/// The best `capacity` rows seen so far, in a bounded min-heap whose root is the worst kept row:
/// O(log capacity) per accepted row, one comparison per rejected one.
struct TopK {
    let capacity: Int
    private(set) var heap: [ScoredRow] = []

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        heap.reserveCapacity(self.capacity)
    }

    /// The score a row must beat to enter (−∞ until full).
    @inline(__always)
    var threshold: Float { heap.count < capacity ? -.infinity : heap[0].score }

    @inline(__always)
    mutating func offer(_ item: ScoredRow) {
        if heap.count < capacity {
            heap.append(item)
            siftUp(heap.count - 1)
        } else if capacity > 0 && ScoredRow.isBetter(item, than: heap[0]) {
            heap[0] = item
            siftDown(0)
        }
    }

    mutating func merge(_ other: TopK) {
        for item in other.heap { offer(item) }
    }

    /// The kept rows, best first.
    func sorted() -> [ScoredRow] {
        heap.sorted { ScoredRow.isBetter($0, than: $1) }
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            // A min-heap on "goodness": a parent is never better than its children.
            guard ScoredRow.isBetter(heap[parent], than: heap[i]) else { break }
            heap.swapAt(parent, i)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let n = heap.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var worst = i
            if l < n && ScoredRow.isBetter(heap[worst], than: heap[l]) { worst = l }
            if r < n && ScoredRow.isBetter(heap[worst], than: heap[r]) { worst = r }
            if worst == i { return }
            heap.swapAt(i, worst)
            i = worst
        }
    }
}
