import Foundation
import Testing
@testable import CorpusFormat

/// The STREAM payload at its edges (C2SP age, "Payload"): chunk boundaries, truncation, tags,
/// last-chunk flags, trailing data. Each refusal names its chunk and releases nothing unverified.
@Suite struct AgeSTREAMTests {
    let key = try! AgeFileKey(bytes: Array(0..<16))
    let nonce = [UInt8](repeating: 0xA5, count: 16)
    static let chunk = 64 * 1024

    @Test(arguments: [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 5])
    func roundTripsAtChunkBoundaries(size: Int) throws {
        let plain = AgeDriver.plaintext(size)
        // Pieces smaller than, equal to and larger than a sealed chunk.
        for piece in [1000, Self.chunk + 16, 1 << 20] {
            let payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce, piece: piece)
            let chunks = max(1, (size + Self.chunk - 1) / Self.chunk)
            #expect(payload.count == 16 + size + 16 * chunks)
            let outcome = AgeDriver.decryptPayload(payload, fileKey: key, piece: piece)
            #expect(outcome.error == nil)
            #expect(outcome.released == plain)
        }
    }

    @Test func theLastFullChunkCarriesTheFinalFlag() throws {
        let payload = try AgeDriver.encryptPayload(AgeDriver.plaintext(2 * Self.chunk), fileKey: key, nonce: nonce)
        let crafted = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [
            (Array(AgeDriver.plaintext(2 * Self.chunk)[0..<Self.chunk]), false),
            (Array(AgeDriver.plaintext(2 * Self.chunk)[Self.chunk...]), true),
        ])
        #expect(payload == crafted)
    }

    @Test func truncationAtAChunkBoundaryIsRefused() throws {
        let plain = AgeDriver.plaintext(3 * Self.chunk + 5)
        let payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce)
        let cut = Array(payload[..<(16 + 2 * (Self.chunk + 16))])
        let outcome = AgeDriver.decryptPayload(cut, fileKey: key)
        // Both full chunks verify as non-final ones; the stream then ends without a final chunk.
        #expect(outcome.error == .truncatedPayload(afterChunks: 2))
        #expect(outcome.released == Array(plain[..<(2 * Self.chunk)]))
    }

    @Test func truncationInsideAChunkOrTheNonceIsRefused() throws {
        let payload = try AgeDriver.encryptPayload(AgeDriver.plaintext(100), fileKey: key, nonce: nonce)
        #expect(AgeDriver.decryptPayload(Array(payload.dropLast(1)), fileKey: key).error == .chunkAuthenticationFailed(chunk: 0))
        #expect(AgeDriver.decryptPayload(Array(payload[..<20]), fileKey: key).error == .truncatedPayload(afterChunks: 0))
        #expect(AgeDriver.decryptPayload(Array(payload[..<16]), fileKey: key).error == .truncatedPayload(afterChunks: 0))
        #expect(AgeDriver.decryptPayload(Array(payload[..<9]), fileKey: key).error == .truncatedPayload(afterChunks: 0))
        #expect(AgeDriver.decryptPayload([], fileKey: key).error == .truncatedPayload(afterChunks: 0))
    }

    @Test func aPayloadWithoutAFinalChunkIsRefused() throws {
        let plain = AgeDriver.plaintext(Self.chunk)
        let crafted = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(plain, false)])
        let outcome = AgeDriver.decryptPayload(crafted, fileKey: key)
        #expect(outcome.error == .truncatedPayload(afterChunks: 1))
        #expect(outcome.released == plain)
        let two = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(plain, false), (plain, false)])
        let outcome2 = AgeDriver.decryptPayload(two, fileKey: key)
        #expect(outcome2.error == .truncatedPayload(afterChunks: 2))
        #expect(outcome2.released == plain + plain)
    }

    @Test func anEmptyFinalChunkAfterOthersIsRefused() throws {
        let plain = AgeDriver.plaintext(Self.chunk)
        let crafted = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(plain, false), ([], true)])
        let outcome = AgeDriver.decryptPayload(crafted, fileKey: key)
        #expect(outcome.error == .emptyFinalChunk(chunk: 1))
        // An empty payload is one empty final chunk, and is valid.
        let empty = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [([], true)])
        #expect(AgeDriver.decryptPayload(empty, fileKey: key).error == nil)
    }

    @Test func dataAfterTheFinalChunkIsRefused() throws {
        let plain = AgeDriver.plaintext(Self.chunk)
        let payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce)
        let outcome = AgeDriver.decryptPayload(payload + [0], fileKey: key)
        #expect(outcome.error == .trailingData(afterChunk: 0))
        // The final chunk verified before the extra byte arrived; the refusal comes after it.
        #expect(outcome.released == plain)
        // A second final chunk after a full final one is trailing data too.
        let twoFinal = try AgeDriver.craftPayload(fileKey: key, nonce: nonce, chunks: [(plain, true), ([1, 2, 3], true)])
        #expect(AgeDriver.decryptPayload(twoFinal, fileKey: key).error == .trailingData(afterChunk: 0))
        // After a short final chunk the extra bytes make the chunk fail as a whole.
        let short = try AgeDriver.encryptPayload(AgeDriver.plaintext(10), fileKey: key, nonce: nonce)
        #expect(AgeDriver.decryptPayload(short + [0, 0], fileKey: key).error == .chunkAuthenticationFailed(chunk: 0))
    }

    @Test(arguments: [16, 16 + 1000, 16 + chunk + 15, 16 + chunk + 16 + 7, 16 + 2 * (chunk + 16) + 3])
    func aTamperedByteFailsItsChunk(offset: Int) throws {
        let plain = AgeDriver.plaintext(2 * Self.chunk + 100)
        var payload = try AgeDriver.encryptPayload(plain, fileKey: key, nonce: nonce)
        payload[offset] ^= 0x01
        let chunk = UInt64((offset - 16) / (Self.chunk + 16))
        let outcome = AgeDriver.decryptPayload(payload, fileKey: key)
        #expect(outcome.error == .chunkAuthenticationFailed(chunk: chunk))
        #expect(outcome.released == Array(plain[..<(Int(chunk) * Self.chunk)]))
    }

    @Test func aTamperedNonceOrAWrongKeyFailsTheFirstChunk() throws {
        var payload = try AgeDriver.encryptPayload(AgeDriver.plaintext(500), fileKey: key, nonce: nonce)
        let other = try AgeFileKey.generate()
        #expect(AgeDriver.decryptPayload(payload, fileKey: other).error == .chunkAuthenticationFailed(chunk: 0))
        payload[3] ^= 0x80
        #expect(AgeDriver.decryptPayload(payload, fileKey: key).error == .chunkAuthenticationFailed(chunk: 0))
    }

    @Test func chunkNoncesAreABigEndianCounterAndAFlag() {
        #expect(AgeSTREAM.chunkNonce(counter: 0, final: false) == [UInt8](repeating: 0, count: 12))
        #expect(AgeSTREAM.chunkNonce(counter: 0x0102, final: true) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1])
    }

    @Test func freshPayloadsHaveFreshNonces() throws {
        let a = try AgeDriver.encryptPayload([1, 2, 3], fileKey: key)
        let b = try AgeDriver.encryptPayload([1, 2, 3], fileKey: key)
        #expect(a[..<16] != b[..<16])
    }
}
