import Foundation
import CZip

/// Builders for the publisher's test inputs: real EPUB zips (written with libzip) and
/// real `minisign -V` checks of what the publisher signed.
public enum PublisherFixtures {
    public struct FixtureError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes a zip with `members` in order (the first stored, the rest deflated), as an EPUB has
    /// `mimetype` first and uncompressed.
    public static func writeZip(_ path: String, members: [(name: String, contents: String)]) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var code: Int32 = 0
        guard let za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            throw FixtureError(description: "zip_open \(path) failed with libzip error \(code)")
        }
        for (i, member) in members.enumerated() {
            let bytes = Array(member.contents.utf8)
            let buffer = malloc(max(bytes.count, 1))!
            bytes.withUnsafeBytes { if $0.count > 0 { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            // freep = 1: libzip frees the buffer when it is done with it.
            guard let source = zip_source_buffer(za, buffer, UInt64(bytes.count), 1) else {
                free(buffer)
                zip_discard(za)
                throw FixtureError(description: "zip_source_buffer failed")
            }
            let index = zip_file_add(za, member.name, source, ZIP_FL_OVERWRITE)
            guard index >= 0 else {
                zip_source_free(source)
                zip_discard(za)
                throw FixtureError(description: "zip_file_add \(member.name) failed")
            }
            zip_set_file_compression(za, UInt64(index), i == 0 ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 0)
        }
        guard zip_close(za) == 0 else {
            let message = String(cString: zip_strerror(za))
            zip_discard(za)
            throw FixtureError(description: "zip_close: \(message)")
        }
    }

    /// A minimal EPUB 3: container, an OPF whose spine lists `chapters` in the given order (the
    /// manifest lists them reversed, so a reader that follows the manifest gets the order wrong).
    public static func writeEPUB(_ path: String, title: String, chapters: [(file: String, xhtml: String)]) throws {
        let items = chapters.enumerated().reversed().map { i, c in
            "<item id=\"c\(i)\" href=\"\(c.file)\" media-type=\"application/xhtml+xml\"/>"
        }.joined()
        let spine = chapters.indices.map { "<itemref idref=\"c\($0)\"/>" }.joined()
        let opf = """
        <?xml version="1.0" encoding="UTF-8"?>
        <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
        <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:test</dc:identifier>
        <dc:title>\(title)</dc:title><dc:language>en</dc:language></metadata>
        <manifest><item id="css" href="style.css" media-type="text/css"/>\(items)</manifest>
        <spine>\(spine)</spine></package>
        """
        let container = """
        <?xml version="1.0"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
        <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>
        """
        var members: [(String, String)] = [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container),
                                           ("OEBPS/content.opf", opf), ("OEBPS/style.css", "p { margin: 0 }")]
        for c in chapters { members.append(("OEBPS/\(c.file)", c.xhtml)) }
        try writeZip(path, members: members)
    }

    /// A small XHTML chapter.
    public static func xhtml(title: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml"><head><title>\(title)</title></head>
        <body>\(body)</body></html>
        """
    }

    /// Runs the real `minisign -V` on `file` with `file.minisig` and a public key file.
    public static func minisignVerify(_ file: String, publicKey: String, signature: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run("minisign", ["-V", "-m", file, "-p", publicKey, "-x", signature ?? file + ".minisig"])
    }

    /// Extracts one member of a zip with the real `unzip` into `directory` and returns its path.
    public static func unzipMember(_ zip: String, _ member: String, into directory: String) throws -> String {
        let out = "\(directory)/\(member)"
        let r = try ProcessRunner.run("unzip", ["-p", zip, member])
        guard r.status == 0 else { throw FixtureError(description: "unzip -p \(zip) \(member): \(r.stderr)") }
        try Data(r.stdout.utf8).write(to: URL(fileURLWithPath: out))
        return out
    }
}
