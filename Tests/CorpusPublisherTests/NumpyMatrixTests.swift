import Testing
import CorpusTestSupport
@testable import CorpusPublisher

/// The reader app's `embeddings.npy`: only little-endian float32 in C order, two dimensions,
/// as many bytes as the header promises; anything else refused with what it is.
@Suite struct NumpyMatrixTests {
    @Test func readsAFloat32Matrix() throws {
        let m = try NumpyMatrix(ReaderAppFixture.npy([1, 2, 3, 4, 5, 6], shape: "(2, 3)"))
        #expect(m.rows == 2 && m.columns == 3 && m.values == [1, 2, 3, 4, 5, 6])
    }

    @Test func readsVersion2Headers() throws {
        var bytes = ReaderAppFixture.npy([0.5, -0.5], shape: "(1, 2)")
        // Version 2.0: a 4-byte header length; the same header moved by two bytes.
        let length = Int(bytes[8]) | Int(bytes[9]) << 8
        bytes = Array(bytes[0..<6]) + [2, 0] + [UInt8(length & 0xff), UInt8(length >> 8), 0, 0] + Array(bytes[10...])
        let m = try NumpyMatrix(bytes)
        #expect(m.rows == 1 && m.columns == 2 && m.values == [0.5, -0.5])
    }

    static let refusals: [(String, [UInt8], NumpyMatrix.Failure)] = [
        ("not npy", Array("PK\u{3}\u{4}not numpy".utf8), .notNumpy),
        ("float64", ReaderAppFixture.npy([1, 2], shape: "(1, 1)", descr: "<f8"), .dtype("<f8")),
        ("big-endian float32", ReaderAppFixture.npy([1, 2], shape: "(1, 2)", descr: ">f4"), .dtype(">f4")),
        ("float16", ReaderAppFixture.npy([1], shape: "(1, 2)", descr: "<f2"), .dtype("<f2")),
        ("Fortran order", ReaderAppFixture.npy([1, 2], shape: "(1, 2)", fortran: true), .fortranOrder),
        ("one dimension", ReaderAppFixture.npy([1, 2], shape: "(2,)"), .shape("(2,)")),
        ("three dimensions", ReaderAppFixture.npy([1, 2], shape: "(1, 2, 1)"), .shape("(1, 2, 1)")),
        ("fewer bytes than the shape", ReaderAppFixture.npy([1, 2, 3], shape: "(2, 2)"), .size(data: 12, expected: 16)),
        ("more bytes than the shape", ReaderAppFixture.npy([1, 2, 3, 4, 5], shape: "(2, 2)"), .size(data: 20, expected: 16)),
        ("a negative dimension", ReaderAppFixture.npy([1], shape: "(-1, 2)"), .shape("(-1, 2)")),
    ]

    @Test(arguments: refusals)
    func refuses(_ c: (String, [UInt8], NumpyMatrix.Failure)) {
        #expect(throws: c.2, "\(c.0)") { try NumpyMatrix(c.1) }
    }

    @Test func refusalsSayWhatTheFileHolds() {
        #expect(NumpyMatrix.Failure.dtype("<f8").description == #"holds "<f8" values; it must be little-endian float32 ('<f4')"#)
        #expect(NumpyMatrix.Failure.shape("(2,)").description == "has shape (2,); it must be (chunks, dimension)")
    }
}
