import CorpusCLIKit
import CorpusFormat

/// `corpus import` given another app's corpus rather than a CorpusSync bundle: the reader app
/// names its bundles `.corpus.zip` too. Told apart by the members (`BundleKind`), before the
/// bundle reader would refuse the file as an unsafe archive (a member not on its allowlist),
/// which is not what happened: the file is fine, it is another kind, and converting it is a
/// publisher's step (`corpusd build --from`, docs/import.md).
enum ForeignBundleCheck {
    /// Throws the refusal (exit 2, `foreign-bundle`) when `path` is a corpus of another app; returns
    /// for our bundles and for anything unrecognised, which the import then checks as a bundle.
    static func refuse(_ path: String) throws {
        let kind = BundleKind.detect(path: path)
        guard let format = kind.importFormat else { return }
        let what = switch kind {
        case .readerApp: "a reader-app corpus (it holds corpus_meta.json and chunks.json)"
        case .browserExport: "a browser library export (it holds knowledge.json)"
        default: "a zipped knowledge-app folder (it holds manifest.json and .pack files)"
        }
        let source = kind == .knowledgeApp ? "Corpus (the folder, unzipped)" : path
        throw ErrorReport(code: "foreign-bundle", message: "\(path) is \(what), not a CorpusSync bundle; nothing was imported",
                          hint: "convert it into a bundle first: corpusd build \(source) --from \(format) --id ID --version 1 --key KEY --out ID-1.corpus.zip, then corpus import ID-1.corpus.zip",
                          kind: .usage)
    }
}
