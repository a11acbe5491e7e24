import Foundation
import CorpusEngine
import CorpusPublisher

/// Runs one importer of another app's export (`ImportedCorpus.load`, what `corpusd build --from`
/// calls) on a path in the scratch folder and checks what it returned: every passage names one
/// of the documents and holds text, and vectors, when kept, have one row per passage.
enum ImportRun {
    static func load(_ format: ImportFormat, path: String) {
        let scratch = FuzzScratch.emptyFolder("import-scratch")
        guard let corpus = try? ImportedCorpus.load(format, path: path, scratch: scratch, embedder: HashingEmbedder()) else { return }
        for p in corpus.passages {
            fuzzAssert(corpus.documents.indices.contains(p.document), "passage of document \(p.document) of \(corpus.documents.count)")
        }
        if let vectors = corpus.vectors {
            fuzzAssert(vectors.rowOfPassage.count == corpus.passages.count, "\(vectors.rowOfPassage.count) vector rows for \(corpus.passages.count) passages")
            fuzzAssert(vectors.rowOfPassage.allSatisfy { $0 >= 0 && $0 < vectors.rows }, "a passage's vector row is outside the matrix")
        }
    }
}
