import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusEngine

/// The encoder's scratch is kept between calls: a batch after the first allocates nothing new
/// (freshly allocated scratch was faulted in, zeroed, on every call), and no more sets are kept
/// than can run at once.
@Suite struct ScratchPoolTests {
    @Test func aSetIsReusedWhenItHoldsTheCallAndTheSmallestGoesBeyondOneACore() {
        let pool = ScratchPool()
        let c = BERTConfiguration()
        let big = pool.take(tokens: 256, longest: 128, c: c)
        pool.give(big)
        let again = pool.take(tokens: 40, longest: 20, c: c)
        #expect(again.hidden.baseAddress == big.hidden.baseAddress, "a smaller call runs in the kept set")
        #expect(pool.allocated == 1)
        let longer = pool.take(tokens: 256, longest: 200, c: c)
        #expect(pool.allocated == 2, "a longer sequence than the kept set holds needs a new set")
        pool.give(again)
        pool.give(longer)
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let extra = (0..<cores).map { _ in pool.take(tokens: 300, longest: 300, c: c) }
        for s in extra { pool.give(s) }
        #expect(pool.kept == cores, "one set a core is kept")
    }

    @Test(.enabled(if: MiniLMFixtures.modelAvailable, "\(MiniLMFixtures.modelAbsentMessage)"))
    func repeatedBatchesAllocateNoNewScratch() throws {
        let embedder = try MiniLMFixtures.embedder()
        let texts = (0..<8).map { "Passage \($0): readers do not block writers, and writers do not block readers." }
        let first = try embedder.embed(texts)
        let allocated = embedder.encoder.scratchPool.allocated
        #expect(allocated >= 1)
        for _ in 0..<3 {
            #expect(try embedder.embed(texts) == first, "the same vectors from reused scratch")
        }
        #expect(embedder.encoder.scratchPool.allocated == allocated)
    }
}
