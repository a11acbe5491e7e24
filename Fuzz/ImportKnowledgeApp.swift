import Foundation
import CorpusPublisher
import CorpusTestSupport

/// The knowledge app's folder importer (`--from knowledgepress`: `manifest.json`,
/// `embedder.json`, SQLite `.pack` files and raw int8 vectors). The input is a `FileSet` written
/// into a fresh folder; names with a `/` or a dot segment are skipped (the folder is flat).
func fuzzImportKnowledgeApp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(data, size)
    let folder = FuzzScratch.emptyFolder("knowledge")
    for file in FileSet.decode(&input) {
        let name = String(decoding: file.name, as: UTF8.self)
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else { continue }
        FileManager.default.createFile(atPath: "\(folder)/\(name)", contents: Data(file.data))
    }
    ImportRun.load(.knowledgepress, path: folder)
    return 0
}

func initializeImportKnowledgeApp(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    FuzzSeeds.writeIfAsked {
        var seeds: [(String, [UInt8])] = []
        for (n, news) in [false, true].enumerated() {
            var fixture = KnowledgeAppFixture(books: 2, passagesPerBook: 2)
            fixture.dimension = 8
            fixture.withNews = news
            let folder = FuzzScratch.emptyFolder("seed-\(n)")
            try fixture.write(to: folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            seeds.append(("knowledge-\(n)", FileSet.encode(try names.map { ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0)")))) })))
        }
        return seeds
    }
    return 0
}
