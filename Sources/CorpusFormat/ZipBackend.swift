import Foundation

/// Which zip reader a `ZipReader` (and so every bundle, artifact, delta and foreign-archive
/// reader) reads through. Both run after the same pre-check (`ZipCentralDirectory`,
/// `ZipMemberLayout`) and refuse the same archives; callers normally take `platformDefault`.
public enum ZipImplementation: String, Sendable, CaseIterable {
    /// zlib's raw inflate over the pre-checked layout (`InflateZipArchive`): the only one on Apple
    /// platforms, where an app cannot link libzip.
    case zlib
    #if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
    /// libzip with `ZIP_CHECKCONS` (`ZipArchive`): Linux's default.
    case libzip
    #endif

    /// zlib on Apple platforms and in a Linux build with `-Xswiftc -DCORPUS_ZLIB_READER`
    /// (docs/apple.md), libzip otherwise.
    public static var platformDefault: ZipImplementation {
        #if canImport(Darwin) || CORPUS_ZLIB_READER || CORPUS_APPLE_SEAMS
        return .zlib
        #else
        return .libzip
        #endif
    }
}

/// The seam between `ZipReader` and a zip implementation: an archive whose central directory
/// was already checked, its members addressed by their index in that directory.
protocol ZipBackend: AnyObject {
    var entryCount: Int { get }
    /// The member's name exactly as the implementation read it.
    func rawName(at index: Int) -> [UInt8]?
    /// The uncompressed size the central directory gives the member.
    func uncompressedSize(at index: Int) throws -> Int64
    func openMember(at index: Int, name: String) throws -> any ZipMemberStream
}

/// One member opened for reading its uncompressed bytes.
protocol ZipMemberStream: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 means the member ended and its CRC-32 and size matched
    /// the central directory. A CRC or size failure at the end is thrown here.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}
