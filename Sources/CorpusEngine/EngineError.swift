import Foundation
import CorpusFormat

/// Everything that can go wrong opening or searching installed corpora.
///
/// Refusals to trust a pack (triggers, views, a leftover journal, counts that disagree with the
/// manifest, a failed integrity check) have their own cases, apart from plain I/O and SQLite
/// failures, so the CLI can map them to "verification refused".
public enum EngineError: Error, Equatable, Sendable {
    /// The pack's `sqlite_schema` defines a trigger or view; packs never contain either.
    case packHasSchemaCode(corpus: String, kind: String, name: String)
    /// A `-wal`, `-shm` or `-journal` file sits next to the pack: SQLite would replay it.
    case packHasJournal(corpus: String, file: String)
    /// The pack's tables or `meta` disagree with the format or the manifest.
    case packInconsistent(corpus: String, reason: String)
    /// `PRAGMA quick_check` reported problems.
    case integrityCheckFailed(corpus: String, problems: [String])
    /// The vector sidecar disagrees with the manifest (rows, dimension, encoding) or is malformed.
    case vectorsInconsistent(corpus: String, reason: String)
    /// The query embedder is not the one the corpus was built with.
    case embedderMismatch(corpus: String, corpusEmbedder: String, queryEmbedder: String)
    /// The corpus names an embedder model (id and digest) that is not installed in `HOME/embedders/`;
    /// `installed` lists the digests of that embedder that are.
    case embedderNotInstalled(corpus: String, embedder: String, digest: SHA256Digest, installed: [SHA256Digest])
    /// The installed model folder for the corpus's digest does not hold that model (tampered or damaged).
    case embedderModelMismatch(corpus: String, embedder: String, digest: SHA256Digest, reason: String)
    /// The corpus names an embedder this build cannot run, or an embedder reference that is malformed.
    case embedderUnsupported(corpus: String, embedder: String, reason: String)
    /// A corpus named in the search options is not installed.
    case corpusNotFound(String)
    /// A name selects corpora of more than one catalog (`remote/id`); a browse reads one corpus.
    case corpusAmbiguous(String, candidates: [String])
    /// The corpus has no document at that path (matched against its documents only).
    case documentNotFound(corpus: String, document: String)
    /// The corpus (or, when `document` is given, that document) holds no passage with that id.
    case passageNotFound(corpus: String, passage: String, document: String?)
    /// A browse request names what no pack holds (a hostile or malformed path, a passage id that
    /// is not one): the caller's mistake, said as one (`BrowseArgument`).
    case invalidBrowseRequest(String)
    /// A file or folder could not be read.
    case io(operation: String, path: String, errno: Int32)
    /// The manifest did not decode.
    case manifest(corpus: String, FormatError)
    /// A SQLite call failed.
    case sqlite(corpus: String, SQLiteError)

    /// True when the error is a refusal to trust what is on disk (exit code 3 in the CLI).
    public var isVerificationRefusal: Bool {
        switch self {
        case .packHasSchemaCode, .packHasJournal, .packInconsistent, .integrityCheckFailed, .vectorsInconsistent, .manifest,
             .embedderModelMismatch:
            return true
        case .embedderMismatch, .embedderNotInstalled, .embedderUnsupported, .corpusNotFound, .io, .sqlite,
             .corpusAmbiguous, .documentNotFound, .passageNotFound, .invalidBrowseRequest:
            return false
        }
    }
}

extension EngineError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case let .packHasSchemaCode(corpus, kind, name):
            return "\(corpus): pack.sqlite defines a \(kind) (\(name.debugDescription)); packs may not contain triggers or views"
        case let .packHasJournal(corpus, file):
            return "\(corpus): \(file) exists next to pack.sqlite; a pack is opened only without a journal or WAL beside it"
        case let .packInconsistent(corpus, reason):
            return "\(corpus): pack.sqlite is inconsistent: \(reason)"
        case let .integrityCheckFailed(corpus, problems):
            return "\(corpus): pack.sqlite failed its integrity check: \(problems.prefix(3).joined(separator: "; "))"
        case let .vectorsInconsistent(corpus, reason):
            return "\(corpus): vectors.bin is unusable: \(reason)"
        case let .embedderMismatch(corpus, corpusEmbedder, queryEmbedder):
            return "\(corpus) was embedded with \(corpusEmbedder) but the query embedder is \(queryEmbedder); search it lexical-only or use the matching embedder"
        case let .embedderNotInstalled(corpus, embedder, digest, installed):
            let have = installed.isEmpty ? "none is installed" : "installed: \(installed.map { String($0.prefix(12)) }.joined(separator: ", "))"
            return "\(corpus) needs embedder model \(embedder) with digest \(digest.prefix(12))…, which is not installed (\(have)); corpus sync installs it from the catalog, or search it lexical-only"
        case let .embedderModelMismatch(corpus, embedder, digest, reason):
            return "\(corpus): the installed model \(embedder) \(digest.prefix(12))… is not the one the corpus was built with: \(reason)"
        case let .embedderUnsupported(corpus, embedder, reason):
            return "\(corpus) was embedded with \(embedder), which this build cannot use: \(reason); search it lexical-only"
        case let .corpusNotFound(name):
            return "no installed corpus \(name.debugDescription)"
        case let .corpusAmbiguous(name, candidates):
            return "\(name.debugDescription) names more than one installed corpus: \(candidates.joined(separator: ", "))"
        case let .documentNotFound(corpus, document):
            return "\(corpus) has no document \(document.debugDescription)"
        case let .passageNotFound(corpus, passage, document):
            return "\(document.map { "\(corpus) document \($0.debugDescription)" } ?? corpus) has no passage \(passage.debugDescription)"
        case let .invalidBrowseRequest(reason):
            return reason
        case let .io(operation, path, code):
            return "\(operation) \(path): \(String(cString: strerror(code)))"
        case let .manifest(corpus, error):
            return "\(corpus): corpus.json: \(error)"
        case let .sqlite(corpus, error):
            return "\(corpus): \(error)"
        }
    }

    public var errorDescription: String? { description }
}

extension EngineError {
    /// A memory map that failed, as the engine reports it: `io` naming the call, and for a path
    /// that is not a regular file `map` with EINVAL.
    init(mapping error: MappedFileError) {
        self = .io(operation: error.operation, path: error.path, errno: error.errno)
    }
}
