import Foundation
import CorpusPublisher
import CorpusTestSupport

/// The browser's library export importer (`--from lumen`: `knowledge.json` and Markdown pages
/// in a zip). Byte 0, bit 0: the zip shape (`ZipInput`).
func fuzzImportBrowserExport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    ImportRun.load(.lumen, path: FuzzScratch.file("export.zip", ZipInput.archive(&input, mode: mode)))
    return 0
}

func initializeImportBrowserExport(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        let fixture = BrowserExportFixture(pages: 3, paragraphsPerPage: 2)
        let path = FuzzScratch.folder + "/seed.zip"
        try fixture.write(to: path)
        return try ZipInput.seeds("export", zip: path, members: ["knowledge.json"] + (0..<3).map { "pages/p\($0).md" })
    }
    return 0
}
