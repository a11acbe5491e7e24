import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusEngine

@Suite struct MiniLMSafeTensorsTests {
    /// A safetensors file: 8-byte little-endian header length, the JSON header, the data.
    static func file(header: String, data: [UInt8], declaredLength: UInt64? = nil) -> Data {
        let json = Array(header.utf8)
        var bytes: [UInt8] = []
        let length = declaredLength ?? UInt64(json.count)
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: length >> (8 * UInt64(i)))) }
        return Data(bytes + json + data)
    }

    static func floatBytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * UInt32($0))) } }
    }

    @Test func readsF32TensorsInPlace() throws {
        let dir = TempDirectory("safetensors")
        // Header padded to 8 bytes so the data, hence the floats, are aligned.
        var header = #"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"ids":{"dtype":"I64","shape":[1],"data_offsets":[16,24]}}"#
        while header.utf8.count % 8 != 0 { header += " " }
        let path = try dir.write("t.safetensors", Self.file(header: header, data: Self.floatBytes([1, -2.5, 3, 4e-7]) + [UInt8](repeating: 0, count: 8)))
        let file = try SafeTensorsFile(path: path)
        let (values, shape) = try file.floats("a")
        #expect(shape == [2, 2])
        #expect(Array(values) == [1, -2.5, 3, 4e-7])
        #expect(file.tensors["ids"]?.dtype == "I64")
        #expect(throws: SafeTensorsError.unsupportedDType(name: "ids", dtype: "I64")) { try file.floats("ids") }
        #expect(throws: EncoderError.missingTensor(name: "b")) { try file.floats("b") }
    }

    static let malformedCases: [(String, Data, String)] = [
        ("short", Data([1, 2, 3]), "shorter than 8 bytes"),
        ("length past end", file(header: "{}", data: [], declaredLength: 1000), "header length 1000 exceeds the file or the 100 MB limit"),
        ("not json", file(header: "[1,2]", data: []), "header is not a JSON object"),
        ("no offsets", file(header: #"{"a":{"dtype":"F32","shape":[1]}}"#, data: [0, 0, 0, 0]), "tensor a lacks dtype, shape or data_offsets"),
        ("offsets past data", file(header: #"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#, data: [0, 0, 0, 0]),
         "tensor a data_offsets [0, 8] lie outside the 4 data bytes"),
        ("reversed offsets", file(header: #"{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}"#, data: [0, 0, 0, 0]),
         "tensor a data_offsets [4, 0] lie outside the 4 data bytes"),
        ("size mismatch", file(header: #"{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#, data: [UInt8](repeating: 0, count: 8)),
         "tensor a has 8 bytes, its shape [3] of F32 needs 12"),
    ]

    @Test(arguments: malformedCases)
    func malformedFilesAreRefused(_ label: String, _ contents: Data, _ reason: String) throws {
        let dir = TempDirectory("safetensors-bad")
        let path = try dir.write("bad.safetensors", contents)
        let before = DirectorySnapshot(dir.path)
        #expect(throws: SafeTensorsError.malformed(path: path, reason: reason), "\(label)") {
            try SafeTensorsFile(path: path)
        }
        #expect(DirectorySnapshot(dir.path) == before)
    }

    @Test func unknownDTypeIsRefused() throws {
        let dir = TempDirectory("safetensors-dtype")
        let path = try dir.write("q.safetensors", Self.file(header: #"{"a":{"dtype":"F8_E4M3","shape":[1],"data_offsets":[0,1]}}"#, data: [0]))
        #expect(throws: SafeTensorsError.unsupportedDType(name: "a", dtype: "F8_E4M3")) { try SafeTensorsFile(path: path) }
    }

    /// Weights whose shapes are not MiniLM's are refused by name, not read out of bounds.
    @Test func wrongShapeIsRefusedByName() throws {
        let dir = TempDirectory("safetensors-shape")
        var header = #"{"bert.embeddings.word_embeddings.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#
        while header.utf8.count % 8 != 0 { header += " " }
        let path = try dir.write("m.safetensors", Self.file(header: header, data: [UInt8](repeating: 0, count: 16)))
        let file = try SafeTensorsFile(path: path)
        #expect(try BERTWeights.prefix(in: file) == "bert.")
        #expect(throws: EncoderError.tensorShape(name: "bert.embeddings.word_embeddings.weight", expected: [30522, 384], actual: [2, 2])) {
            try BERTWeights(file: file)
        }
    }

    @Test func missingFileIsAnIOError() {
        #expect(throws: SafeTensorsError.io(operation: "open", path: "/nonexistent/m.safetensors", errno: ENOENT)) {
            try SafeTensorsFile(path: "/nonexistent/m.safetensors")
        }
    }
}
