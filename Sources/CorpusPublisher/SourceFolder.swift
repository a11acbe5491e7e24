import Foundation
import CorpusFormat

/// A file a build will read: where it shows up in the folder, and where its bytes are.
public struct SourceFile: Hashable, Sendable {
    /// Relative to the source folder, `/`-separated: the document's path in the pack.
    public var path: String
    /// The real path of the bytes, relative to the folder's real path: `path` itself, or for a
    /// link followed inside the folder, its target.
    var physical: String
    public var size: Int64
}

/// A source folder listed once: the files a build reads and the entries it will not, with why.
public struct SourceListing: Sendable {
    public var files: [SourceFile]
    public var skipped: [SkippedFile]
}

/// A folder of documents as a build reads it: nothing outside it is ever read.
///
/// The listing walks the folder without following links. A link to a file is followed when its
/// real path stays inside the folder's real path and names no dot-file or dot-folder; a link leaving
/// the folder, a link to a folder (even one inside: no cycles to guard against), and a dangling link
/// are skipped with a reason. Files are then read through `ConfinedDirectory`, one component at a
/// time without following any link, so a file or folder swapped for a link after the listing is
/// not followed either: it is skipped as replaced.
public final class SourceFolder: Sendable {
    /// The folder as it was given, for messages.
    public let path: String
    let directory: ConfinedDirectory

    static let leaving = "symbolic link leaving the source folder"
    static let replaced = "replaced by a symbolic link after the folder was listed"
    static let removed = "removed after the folder was listed"

    /// Opens the folder; `sourceNotFound` when it is missing or not a folder.
    public init(_ path: String) throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue,
              let directory = try? ConfinedDirectory(path: path) else {
            throw PublisherError.sourceNotFound(path: path)
        }
        self.path = path
        self.directory = directory
    }

    /// Every file below the folder, dotfiles and dot-folders left out, sorted by the UTF-8 bytes of
    /// their paths; the skipped entries in the same order.
    public func list() throws -> SourceListing {
        var files: [SourceFile] = [], skipped: [SkippedFile] = []
        func visit(_ rel: String) throws {
            let entries: [(name: String, kind: ConfinedDirectory.EntryKind)]
            do { entries = try directory.entries(rel) } catch {
                // A subfolder swapped for a link (or removed) while the walk went on is not entered.
                if !rel.isEmpty, error == .symbolicLink || error == .missing || error == .notRegularFile {
                    skipped.append(SkippedFile(path: rel, reason: error == .symbolicLink ? Self.replaced : Self.removed))
                    return
                }
                let code: Int32
                if case let .failed(errno) = error { code = errno } else { code = ENOENT }
                throw FormatError.io(operation: "list", path: rel.isEmpty ? path : "\(path)/\(rel)", errno: code)
            }
            for (name, kind) in entries where !name.hasPrefix(".") {
                let child = rel.isEmpty ? name : "\(rel)/\(name)"
                switch kind {
                case .directory: try visit(child)
                case let .file(size): files.append(SourceFile(path: child, physical: child, size: size))
                case .symbolicLink:
                    switch followed(child) {
                    case let .success(file): files.append(file)
                    case let .failure(reason): skipped.append(SkippedFile(path: child, reason: reason.reason))
                    }
                case .other: skipped.append(SkippedFile(path: child, reason: "not a regular file"))
                }
            }
        }
        try visit("")
        func byBytes(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        return SourceListing(files: files.sorted { byBytes($0.path, $1.path) }, skipped: skipped.sorted { byBytes($0.path, $1.path) })
    }

    /// One entry by its relative path, judged as the listing judges it.
    func file(at relative: String) -> Result<SourceFile, IngestFailure> {
        switch directory.kind(of: relative) {
        case let .file(size)?: return .success(SourceFile(path: relative, physical: relative, size: size))
        case .symbolicLink?: return followed(relative)
        case .directory?: return .failure(IngestFailure("a folder"))
        case .other?: return .failure(IngestFailure("not a regular file"))
        case nil: return .failure(IngestFailure("missing"))
        }
    }

    /// The file a link leads to, if the build follows it.
    private func followed(_ link: String) -> Result<SourceFile, IngestFailure> {
        switch directory.resolve(link: link) {
        case .broken: return .failure(IngestFailure("broken symbolic link"))
        case .outside: return .failure(IngestFailure(Self.leaving))
        case let .inside(target):
            if target.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                return .failure(IngestFailure("symbolic link to a hidden file or folder"))
            }
            switch directory.kind(of: target) {
            case let .file(size)?: return .success(SourceFile(path: link, physical: target, size: size))
            case .directory?: return .failure(IngestFailure("symbolic link to a folder (folder links are not followed)"))
            case nil, .symbolicLink?: return .failure(IngestFailure("broken symbolic link"))
            case .other?: return .failure(IngestFailure("symbolic link to something that is not a regular file"))
            }
        }
    }

    /// Opens a listed file, following no link on the way.
    func open(_ file: SourceFile) throws(IngestFailure) -> (reader: FileHandleReader, size: Int64) {
        do {
            return try directory.openFile(file.physical)
        } catch {
            switch error {
            case .symbolicLink: throw IngestFailure(Self.replaced)
            case .missing: throw IngestFailure(Self.removed)
            case .notRegularFile: throw IngestFailure("not a regular file")
            case let .failed(code): throw IngestFailure("cannot be read (\(String(cString: strerror(code))))")
            }
        }
    }

    /// Reads a listed file whole, refusing one larger than `limit` bytes.
    func read(_ file: SourceFile, limit: Int) throws(IngestFailure) -> [UInt8] {
        let (reader, size) = try open(file)
        let tooLarge = IngestFailure("larger than \(limit >> 20) MiB")
        guard size <= Int64(limit) else { throw tooLarge }
        let bytes: [UInt8]?
        do { bytes = try reader.readAll(limit: limit) } catch { throw IngestFailure("cannot be read") }
        guard let bytes else { throw tooLarge }
        return bytes
    }

    /// The SHA-256 of a listed file, read the way the build reads it (for the build cache).
    func sha256(_ file: SourceFile) throws -> SHA256Digest {
        let (reader, _) = try open(file)
        return SHA256Digest(bytes: try SHA256.hash(reader).digest)
    }
}
