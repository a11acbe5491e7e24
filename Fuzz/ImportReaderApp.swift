import Foundation
@testable import CorpusPublisher
import CorpusTestSupport

/// The reader app's corpus importer (`--from corpuskit`: `corpus_meta.json`, `chunks.json`,
/// `embeddings.npy` in a zip) and its NumPy matrix reader. Byte 0: bit 0 the zip shape
/// (`ZipInput`); bit 1 set feeds the rest to `NumpyMatrix` alone.
func fuzzImportReaderApp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    if mode & 2 != 0 {
        _ = try? NumpyMatrix(input.rest())
        return 0
    }
    ImportRun.load(.corpuskit, path: FuzzScratch.file("reader.corpus.zip", ZipInput.archive(&input, mode: mode)))
    return 0
}

func initializeImportReaderApp(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        var fixture = ReaderAppFixture.generated(chapters: 2, chunksPerChapter: 3, window: 12, overlap: 3)
        fixture.dimension = 4
        let path = FuzzScratch.folder + "/seed.corpus.zip"
        try fixture.write(to: path)
        let npy = ReaderAppFixture.npy([1, 2, 3, 4, 5, 6], shape: "(2, 3)")
        let fortran = ReaderAppFixture.npy([1, 2, 3, 4], shape: "(2, 2)", descr: "<f2", fortran: true)
        return try ZipInput.seeds("reader", zip: path, members: try fixture.members().map(\.0)) + [("npy", [2] + npy), ("npy-fortran", [2] + fortran)]
    }
    return 0
}
