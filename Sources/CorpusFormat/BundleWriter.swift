// libzip writes (and, on Linux, can read) archives; an app on an Apple platform cannot link it (docs/apple.md).
#if !canImport(Darwin) && !CORPUS_APPLE_SEAMS
import Foundation
internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// Writes signed corpus bundles (`.corpus.zip`, docs/format.md "Corpus bundle").
///
/// The output depends only on the inputs and the key: members in `BundleLayout.allMembers`
/// order, fixed timestamps and modes, no varying extra fields, and a signature without a
/// timestamp, so rebuilding the same corpus gives a byte-identical bundle.
public enum BundleWriter {
    /// The deflate level for `pack.sqlite`. On a 114 MB pack of 100,000 passages (zlib 1.2.13):
    /// level 9 (libzip's default) 34.8 % of the size in 38 s of CPU, 6: 35.6 % in 9.3 s,
    /// 4: 37.9 % in 2.9 s, 2: 40.3 % in 1.9 s, 1: 42.0 % in 1.8 s. Level 2 keeps most of the
    /// saving at the speed of level 1; compressing was most of the build's time at level 9.
    /// The pack is compressed on every core (`ParallelDeflate`). The level changes only the
    /// bytes of the zip, never what a reader extracts. Where ISA-L is linked (Linux) it
    /// compresses this pack instead: smaller than zlib's level 2 in a seventh of the CPU
    /// (`ParallelDeflate.Engine.isal`); zlib at this level is the fallback.
    static let packDeflateLevel: Int32 = 2
    /// The level for a pack without its FTS5 index (`Manifest.index == .install`, the default), a
    /// download made as small as deflate gets it: the publisher pays the CPU once, every client
    /// downloads the bytes, and inflating costs the same at every level. On SQLite's documentation
    /// (7.8 MB without the index, 4 KiB pages, zlib 1.2.13) level 6 gave 2.218 MB in 2.7 s of one
    /// core, 9 gave 2.210 MB in 4.7 s, 2 gave 2.51 MB.
    static let unindexedPackDeflateLevel: Int32 = 9

    /// Hashes the pack and vectors, records them in the manifest, signs it, and writes the
    /// bundle atomically to `outPath` (a temporary sibling renamed into place).
    /// - Parameter vectorsDigest: the SHA-256 and size of `vectorsPath`, when the caller hashed
    ///   the finished file already (a build does while the pack is still being written); nil:
    ///   hashed here.
    /// - Returns: the manifest as signed, with `members` filled in.
    @discardableResult
    public static func write(manifest: Manifest, packPath: String, vectorsPath: String,
                             vectorsDigest: (digest: [UInt8], size: Int64)? = nil, key: SecretKey,
                             to outPath: String) throws -> Manifest {
        var manifest = manifest
        let tmp = FileIO.temporarySibling(of: outPath)
        let deflatedPack = tmp + ".pack.deflate"
        defer { unlink(deflatedPack) }
        // The pack is hashed while it is compressed; the member is the compressed stream as made here.
        let engine: ParallelDeflate.Engine = manifest.index == .install ? .zlib(level: unindexedPackDeflateLevel)
            : .fast(orZlib: packDeflateLevel)
        let pack = try ParallelDeflate.compress(fileAt: packPath, engine: engine, to: deflatedPack)
        let vectors = try vectorsDigest ?? SHA256.hash(fileAt: vectorsPath)
        manifest.members = [
            BundleLayout.pack: MemberInfo(sha256: SHA256Digest(bytes: pack.sha256), size: pack.size),
            BundleLayout.vectors: MemberInfo(sha256: SHA256Digest(bytes: vectors.digest), size: vectors.size),
        ]
        let manifestBytes = try manifest.canonicalBytes()
        // Decoding what we are about to sign catches a manifest the reader would refuse.
        _ = try Manifest.decode(manifestBytes)
        let signature = try key.sign(manifestBytes, trustedComment: manifest.trustedComment)

        var committed = false
        defer { if !committed { unlink(tmp) } }
        do {
            let zip = try ZipArchive(path: tmp, flags: ZIP_CREATE | ZIP_EXCL)
            for name in BundleLayout.allMembers {
                switch name {
                case BundleLayout.manifest:
                    try zip.add(name: name, bytes: manifestBytes, compression: .deflated)
                case BundleLayout.signature:
                    try zip.add(name: name, bytes: Data(signature.fileText.utf8), compression: .stored)
                case BundleLayout.pack:
                    try zip.add(name: name, deflated: pack, level: engine.zipLevel)
                case BundleLayout.vectors:
                    try zip.add(name: name, fileAt: vectorsPath, length: vectors.size, compression: .stored)
                default:
                    preconditionFailure("BundleLayout.allMembers names \(name), which the writer does not know")
                }
            }
            try zip.close()
        }
        try FileIO.commit(tmp, to: outPath)
        committed = true
        return manifest
    }
}
#endif
