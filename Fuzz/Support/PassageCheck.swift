import Foundation
import CorpusFormat
@testable import CorpusPublisher

/// What every ingest target asserts of the documents it got: they split into passages that hold
/// text and respect the length cap (a single character longer than the cap, such as a letter
/// with a thousand combining marks, is the one documented exception: cuts stay on character
/// boundaries).
enum PassageCheck {
    static func check(_ documents: [SourceDocument], maxLength: Int) {
        for (n, doc) in documents.enumerated() {
            for p in PassageSplitter.passages(of: doc, document: n, maxLength: maxLength) {
                let length = p.text.scalarCount
                fuzzAssert(length <= maxLength || p.text.count == 1, "a passage of \(length) scalars over a cap of \(maxLength)")
                fuzzAssert(!p.text.isEmpty, "an empty passage")
            }
        }
    }
}
