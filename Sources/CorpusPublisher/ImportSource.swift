import Foundation
import CorpusFormat

/// What every importer does the same way: name the source in refusals, open an archive with the
/// zip-slip checks, read members with caps, decode hostile JSON into one line naming the field.
struct ImportSource {
    let format: ImportFormat
    let path: String

    /// A refusal naming the source: `reader-app corpus tides.corpus.zip: chunks.json: missing field 3.text`.
    func bad(_ reason: String) -> PublisherError { .importSource(path: path, format: format, reason: reason) }

    func unsafe(_ reason: String) -> PublisherError { .unsafeImportSource(path: path, format: format, reason: reason) }

    /// A format error of an archive or member, as the import refusal it is.
    func refusal(_ e: FormatError, member: String? = nil) -> Error {
        switch e {
        case let .unsafeMemberName(name):
            return unsafe("member \(name.debugDescription) is not a plain relative path (zip slip); nothing was read from it")
        case let .symlinkMember(name):
            return unsafe("member \(name.debugDescription) is a symbolic link; an export holds files only")
        case let .duplicateMember(name):
            return unsafe("member \(name.debugDescription) appears twice; which one a reader sees is up to the reader")
        case let .memberNotAllowed(name):
            return unsafe("member \(name.debugDescription) is not a regular file")
        case .archiveInconsistent:
            return bad("it is not a zip archive, or a damaged one (\(e))")
        case .unsupported:
            return bad("\(e)")
        case let .sizeExceeded(name, limit):
            return bad("\(name) is larger than \(limit >> 20) MiB, more than this importer reads")
        case let .missingMember(name):
            return bad("\(name) is missing")
        case .io:
            return e
        default:
            return bad("\(member.map { "\($0): " } ?? "")\(e)")
        }
    }

    /// Opens a zip export; its entries are checked before any is read (`ForeignArchive`).
    func openArchive() throws -> (archive: ForeignArchive, root: String) {
        do {
            let archive = try ForeignArchive(path: path)
            return (archive, BundleKind.rootPrefix(archive.names))
        } catch let e as FormatError {
            throw refusal(e)
        }
    }

    /// Reads member `name` (under `root`), refusing one over `limit` bytes.
    func read(_ archive: ForeignArchive, _ name: String, root: String, limit: Int) throws -> [UInt8] {
        do {
            return try archive.read(root + name, limit: limit)
        } catch let e as FormatError {
            if case .missingMember = e { throw bad("\(name) is missing") }
            if case .sizeExceeded(member: "*", let total) = e {
                throw bad("its members add up to more than \(total >> 20) MiB (at \(name)), more than this importer reads")
            }
            if case .sizeExceeded = e { throw bad("\(name) is larger than \(limit >> 20) MiB, more than this importer reads") }
            throw refusal(e, member: name)
        }
    }

    /// Decodes `bytes` of file `name`, refusing a name twice in one object or nesting deeper than
    /// 256 (as signed documents are: two readers could otherwise act on two values), with the
    /// field that fails named: `chunks.json: missing field 12.text`.
    func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], name: String) throws -> T {
        do {
            return try CanonicalJSON.decode(type, from: Data(bytes), what: name)
        } catch let FormatError.malformed(_, reason) {
            throw bad("\(name): \(reason)")
        }
    }

    /// The first byte of a JSON text that is not whitespace (`{` or `[` tells an object from an
    /// array before decoding, so each form's errors are its own).
    static func firstJSONByte(_ bytes: [UInt8]) -> UInt8? {
        bytes.first { !(" \t\r\n".utf8.contains($0)) }
    }

    /// Checks a text for the pack: SQLite text ends at a NUL, so a NUL would cut it short.
    func checkText(_ text: String, what: @autoclosure () -> String) throws {
        if text.utf8.contains(0) { throw bad("\(what()) holds a NUL character") }
    }

    /// Checks a source id (a chunk's, a passage's, a chapter's): 1–256 bytes of UTF-8 without
    /// control characters, so it can be a passage id or a document path as it is.
    func checkID(_ id: String, what: String) throws {
        guard !id.isEmpty, id.utf8.count <= 256 else { throw bad("\(what) id \(id.prefix(40).debugDescription) is empty or longer than 256 bytes") }
        guard !id.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }) else {
            throw bad("\(what) id \(id.debugDescription) holds control characters")
        }
    }
}

/// A coding key made from any string, to read a field by the first of its accepted names.
struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where K == AnyKey {
    /// The value under the first of `names` the object has (a field some writers spell otherwise).
    func first<T: Decodable>(_ type: T.Type, _ names: String...) throws -> T? {
        for name in names where contains(AnyKey(name)) {
            if try decodeNil(forKey: AnyKey(name)) { return nil }
            return try decode(type, forKey: AnyKey(name))
        }
        return nil
    }

    /// The value under the first of `names`, refused as a missing field (named by the first
    /// name) when none is there or it is null.
    func required<T: Decodable>(_ type: T.Type, _ names: String...) throws -> T {
        for name in names where contains(AnyKey(name)) {
            if try decodeNil(forKey: AnyKey(name)) { break }
            return try decode(type, forKey: AnyKey(name))
        }
        throw DecodingError.keyNotFound(AnyKey(names[0]), .init(codingPath: codingPath, debugDescription: "missing"))
    }
}

/// A JSON value that is an id: a string, or an integer written as one.
struct SourceID: Decodable, Hashable, Sendable {
    let text: String

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            text = s
        } else if let i = try? c.decode(Int64.self) {
            text = String(i)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "an id must be a string or an integer")
        }
    }
}
