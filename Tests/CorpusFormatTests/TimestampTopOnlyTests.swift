import Foundation
import Testing
import CorpusFormat

/// A catalog version without a flat catalog (over `Catalog.maxFlatBytes`) is named in the
/// timestamp by its top document, as `catalog` and as `top`; any other path is still refused.
@Suite struct TimestampTopOnlyTests {
    static let top = TimestampDocument.TopRef(path: TreeLayout.topPath(version: 4), digest: SHA256.digest(Data("top".utf8)), size: 422)

    static func stamp(catalogPath: String, catalogDigest: SHA256Digest = top.digest, top: TimestampDocument.TopRef? = top) throws -> Data {
        let now = Date()
        return try CanonicalJSON.encode(TimestampDocument(version: 9, issued: now, expires: now.addingTimeInterval(3600),
                                                          catalog: .init(id: "scale", version: 4, path: catalogPath, digest: catalogDigest, size: 422),
                                                          top: top))
    }

    @Test func aTimestampNamingTheTopDocumentAsItsCatalogDecodes() throws {
        let doc = try TimestampDocument.decode(try Self.stamp(catalogPath: Self.top.path))
        #expect(doc.catalog.path == Self.top.path && doc.top == Self.top)
    }

    @Test(arguments: [
        ("catalogs/4.top.json", false, true),   // the top path, but the timestamp names no top
        ("catalogs/4.top.json", true, false),   // the top path with another digest than the top's
        ("catalogs/3.top.json", true, true),    // another version's top document
    ])
    func aCatalogPathThatIsNotTheFlatCatalogNorTheNamedTopIsRefused(_ c: (String, Bool, Bool)) throws {
        let bytes = try Self.stamp(catalogPath: c.0, catalogDigest: c.2 ? Self.top.digest : SHA256.digest(Data("other".utf8)), top: c.1 ? Self.top : nil)
        #expect(throws: FormatError.malformed(what: TreeLayout.timestamp, reason: "catalog path \(c.0.debugDescription) is not catalogs/<version>.json")) {
            try TimestampDocument.decode(bytes)
        }
    }
}
