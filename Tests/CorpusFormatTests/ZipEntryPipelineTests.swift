import Dispatch
import Foundation
import Testing
import CorpusTestSupport
@testable import CorpusFormat

/// The two-buffer read-ahead that every bundle member goes through (`ZipEntryPipeline`).
///
/// The slots used to be two elements of one `var` array per field, written by the helper thread
/// while the caller read the other element: a race on the array's buffer that ThreadSanitizer
/// reports (`make tsan`) and that can free the buffer under the reader; a CI run of the suite died
/// with SIGABRT in the test process. Tiny chunks make the two threads hand slots back and forth
/// tens of thousands of times, several pipelines at once, so the race shows under `make tsan` on
/// every run; the bytes must come out whole and in order either way.
@Suite struct ZipEntryPipelineTests {
    @Test func tinyChunksHandedBackAndForthDeliverEveryByteInOrder() throws {
        let dir = TempDirectory("pipeline")
        var rng = SplitMix64(seed: 42)
        let member = (0..<60_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let path = try dir.write("a.zip", Data(ZipCrafting.build([CraftedZipEntry(name: "m", stored: member)])))

        let results = Collected<[UInt8]>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let file = try FileHandleReader(path: path)
                let zip = try ZipReader(duplicating: file.descriptor, path: path)
                let pipeline = ZipEntryPipeline(reader: try zip.backend.openMember(at: 0, name: "m"), chunkSize: 3,
                                                limit: Int64(member.count) + 1)
                var out: [UInt8] = []
                out.reserveCapacity(member.count)
                try pipeline.forEachChunk { out.append(contentsOf: $0) }
                results.append(out)
            } catch {
                Issue.record("reading through the pipeline failed: \(error)")
            }
        }
        #expect(results.all.count == 4)
        for out in results.all { #expect(out == member) }
    }

    @Test func theLimitStopsTheHelperWithAShortLastChunk() throws {
        let dir = TempDirectory("pipeline")
        let member = [UInt8](repeating: 9, count: 1000)
        let path = try dir.write("a.zip", Data(ZipCrafting.build([CraftedZipEntry(name: "m", stored: member)])))
        let file = try FileHandleReader(path: path)
        let zip = try ZipReader(duplicating: file.descriptor, path: path)
        let pipeline = ZipEntryPipeline(reader: try zip.backend.openMember(at: 0, name: "m"), chunkSize: 64, limit: 100)
        var sizes: [Int] = []
        try pipeline.forEachChunk { sizes.append($0.count) }
        #expect(sizes == [64, 36])
    }
}
