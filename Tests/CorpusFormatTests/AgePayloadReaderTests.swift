import CorpusTestSupport
import Foundation
import Testing
@testable import CorpusFormat

/// Random access to a payload's plaintext (`AgePayloadReader`, what an encrypted bundle is read
/// through): any offset reads the same bytes the streaming decryptor releases, and every payload
/// the streaming decryptor refuses is refused with the same error once the chunk at fault is read.
@Suite struct AgePayloadReaderTests {
    let key = try! AgeFileKey(bytes: Array(0..<16))
    let nonce = [UInt8](repeating: 0xA5, count: 16)
    static let chunk = 64 * 1024
    let dir = TempDirectory("age-payload-reader")

    func reader(_ payload: [UInt8], key: AgeFileKey? = nil) throws -> AgePayloadReader {
        let path = dir.url("p\(UInt32.random(in: 0...UInt32.max)).age")
        try Data(payload).write(to: URL(fileURLWithPath: path))
        return try AgePayloadReader(path: path, fileKey: key ?? self.key)
    }

    /// Reads `count` bytes at `offset` (fewer at the end).
    func read(_ r: AgePayloadReader, _ offset: Int64, _ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let n = try out.withUnsafeMutableBytes { try r.read(into: $0, at: offset) }
        return Array(out[..<n])
    }

    /// Reads every chunk in order, so the first one at fault decides the error.
    func readAll(_ r: AgePayloadReader) throws -> [UInt8] {
        try read(r, 0, Int(r.size) + 1)
    }

    func refusal(_ body: () throws -> Void) -> AgeError? {
        do { try body() } catch { return error as? AgeError ?? .crypto(operation: "unexpected \(error)") }
        return nil
    }

    @Test(arguments: [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 5])
    func anyOffsetReadsThePlaintext(size: Int) throws {
        let plain = AgeDriver.plaintext(size)
        let r = try reader(try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce))
        #expect(r.size == Int64(size))
        #expect(try readAll(r) == plain)
        // Backwards and across chunk boundaries, as a zip reader goes from its end to its headers.
        for offset in [size - 1, size / 2, Self.chunk - 3, 2 * Self.chunk - 1, 0, size] where offset >= 0 && offset <= size {
            let want = Array(plain[offset..<min(size, offset + 10)])
            #expect(try read(r, Int64(offset), 10) == want, "at \(offset)")
        }
    }

    @Test func aTamperedChunkOrAWrongKeyIsRefusedWhenRead() throws {
        let plain = AgeDriver.plaintext(3 * Self.chunk + 100)
        var payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce)
        payload[16 + (Self.chunk + 16) + 7] ^= 0x01
        let r = try reader(payload)
        // Chunk 0 still reads; chunk 1 is refused whenever it is asked for.
        #expect(try read(r, 0, 100) == Array(plain[..<100]))
        #expect(refusal { _ = try read(r, Int64(Self.chunk) + 5, 10) } == .chunkAuthenticationFailed(chunk: 1))
        #expect(refusal { _ = try readAll(r) } == .chunkAuthenticationFailed(chunk: 1))
        // The last chunk is opened up front: a wrong key is refused before anything is read.
        #expect(refusal { _ = try reader(payload, key: try AgeFileKey.generate()) } == .chunkAuthenticationFailed(chunk: 3))
    }

    @Test func theEndIsCheckedAsTheStreamingDecryptorChecksIt() throws {
        let plain = AgeDriver.plaintext(3 * Self.chunk + 5)
        let payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce)
        // Cut at a chunk boundary: the last full chunk opens only as a middle one.
        let cut = Array(payload[..<(16 + 2 * (Self.chunk + 16))])
        #expect(AgeDriver.decryptPayload(cut, fileKey: key).error == .truncatedPayload(afterChunks: 2))
        #expect(refusal { _ = try reader(cut) } == .truncatedPayload(afterChunks: 2))
        // Cut inside a chunk or the nonce, or too short for a tag.
        for bytes in [Array(payload.dropLast(1)), Array(payload[..<20]), Array(payload[..<16]), Array(payload[..<9]), []] {
            let streaming = AgeDriver.decryptPayload(bytes, fileKey: key).error
            #expect(streaming != nil)
            #expect(refusal { _ = try readAll(try reader(bytes)) } == streaming, "\(bytes.count) bytes")
        }
        // An empty final chunk after others; an empty payload is one empty final chunk, and valid.
        let one = AgeDriver.plaintext(Self.chunk)
        let emptyLast = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(one, false), ([], true)])
        #expect(refusal { _ = try reader(emptyLast) } == .emptyFinalChunk(chunk: 1))
        let empty = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [([], true)])
        #expect(try reader(empty).size == 0)
    }

    @Test func aFinalChunkBeforeTheEndIsTrailingData() throws {
        let one = AgeDriver.plaintext(Self.chunk)
        let twoFinal = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(one, true), ([1, 2, 3], true)])
        #expect(AgeDriver.decryptPayload(twoFinal, fileKey: key).error == .trailingData(afterChunk: 0))
        let r = try reader(twoFinal)
        #expect(refusal { _ = try readAll(r) } == .trailingData(afterChunk: 0))
        // A byte after a full final chunk, or after a full middle chunk with no final one.
        let payload = try AgeDriver.encryptPayload(one, fileKey: key, nonce: nonce)
        #expect(AgeDriver.decryptPayload(payload + [0], fileKey: key).error == .trailingData(afterChunk: 0))
        #expect(refusal { _ = try reader(payload + [0]) } == .trailingData(afterChunk: 0))
        let middle = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(one, false)]) + [0, 0]
        #expect(AgeDriver.decryptPayload(middle, fileKey: key).error == .truncatedPayload(afterChunks: 1))
        #expect(refusal { _ = try reader(middle) } == .truncatedPayload(afterChunks: 1))
    }
}
