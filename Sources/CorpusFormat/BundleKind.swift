import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a `.corpus.zip` (or any zip) handed to `corpus import` holds, told by its member names.
///
/// The reader app names its own bundles `.corpus.zip` too, so the suffix says nothing: a CorpusSync
/// bundle has `corpus.json`; the reader app's has `corpus_meta.json` and `chunks.json`; the
/// browser's export has `knowledge.json`; a zipped knowledge-app folder has `manifest.json` beside
/// `.pack` files. Only the raw central directory is read (no member is opened, nothing is
/// unpacked), at the root or under one top folder, as zipping a folder makes. Importing a bundle
/// still runs every check of `BundleReader`; this only decides which refusal a user gets.
public enum BundleKind: String, Sendable, Equatable, CaseIterable {
    case corpusSync
    /// The reader app's corpus (`corpusd build FILE --from corpuskit`).
    case readerApp
    /// The browser's library export (`--from lumen`).
    case browserExport
    /// The knowledge app's `Corpus/` folder, zipped (`--from knowledgepress`, once unzipped).
    case knowledgeApp
    /// Not a zip, or none of the above: left to the bundle reader's own refusal.
    case unrecognized

    /// The `corpusd build --from` format that converts this kind, nil for ours and the unrecognized.
    public var importFormat: String? {
        switch self {
        case .readerApp: "corpuskit"
        case .browserExport: "lumen"
        case .knowledgeApp: "knowledgepress"
        case .corpusSync, .unrecognized: nil
        }
    }

    /// Looks at the member names of the zip file at `path`.
    public static func detect(path: String) -> BundleKind {
        let fd = SystemCall.retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return .unrecognized }
        defer { close(fd) }
        guard let directory = try? ZipCentralDirectory.read(fd: fd, path: path, limits: .export) else { return .unrecognized }
        return classify(directory.entries.map { String(decoding: $0.name, as: UTF8.self) })
    }

    /// The kind a list of member names makes.
    public static func classify(_ names: [String]) -> BundleKind {
        let prefix = rootPrefix(names)
        let visible = Set(names.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("/") }.map { String($0.dropFirst(prefix.count)) })
        if visible.contains(BundleLayout.manifest) { return .corpusSync }
        if visible.contains("corpus_meta.json") || visible.contains("chunks.json") { return .readerApp }
        if visible.contains("knowledge.json") { return .browserExport }
        if visible.contains("manifest.json"), visible.contains(where: { $0.hasSuffix(".pack") }) { return .knowledgeApp }
        return .unrecognized
    }

    /// Where an archive's files start: `""`, or `"Folder/"` when every member is inside that one
    /// folder (what zipping a folder rather than its contents makes).
    public static func rootPrefix(_ names: [String]) -> String {
        let files = names.filter { !$0.hasSuffix("/") }
        guard let first = files.first, let slash = first.firstIndex(of: "/") else { return "" }
        let prefix = String(first[...slash])
        return files.allSatisfy { $0.hasPrefix(prefix) } ? prefix : ""
    }
}
