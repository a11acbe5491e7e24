import Foundation
@testable import CorpusFormat

/// Drives the age decryptors the way a download does (pieces of any size) and records what
/// they released, so a refusal can be checked for the plaintext it let out before refusing.
enum AgeDriver {
    struct Outcome {
        var released: [UInt8] = []
        var error: AgeError?
    }

    static func decryptPayload(_ payload: [UInt8], fileKey: AgeFileKey, piece: Int = 4096) -> Outcome {
        let decryptor = AgePayloadDecryptor(fileKey: fileKey)
        return drive(payload, piece: piece, update: decryptor.update, finish: decryptor.finish)
    }

    static func decryptFile(_ file: [UInt8], identities: [AgeX25519Identity], piece: Int = 4096) -> Outcome {
        let decryptor = AgeFileDecryptor(identities: identities)
        return drive(file, piece: piece, update: decryptor.update, finish: decryptor.finish)
    }

    private static func drive(_ bytes: [UInt8], piece: Int,
                              update: (UnsafeRawBufferPointer, (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                              finish: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) -> Outcome {
        var outcome = Outcome()
        let sink: (UnsafeRawBufferPointer) throws -> Void = { outcome.released += $0 }
        do {
            try bytes.withUnsafeBytes { all in
                var offset = 0
                while offset < all.count {
                    let end = min(all.count, offset + piece)
                    try update(UnsafeRawBufferPointer(rebasing: all[offset..<end]), sink)
                    offset = end
                }
            }
            try finish(sink)
        } catch {
            outcome.error = error as? AgeError ?? .crypto(operation: "unexpected \(error)")
        }
        return outcome
    }

    static func encryptPayload(_ plaintext: [UInt8], fileKey: AgeFileKey, nonce: [UInt8]? = nil, piece: Int = 4096) throws -> [UInt8] {
        let encryptor = try AgePayloadEncryptor(fileKey: fileKey, nonce: nonce)
        var out: [UInt8] = []
        try plaintext.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + piece)
                try encryptor.update(UnsafeRawBufferPointer(rebasing: all[offset..<end])) { out += $0 }
                offset = end
            }
        }
        try encryptor.finish { out += $0 }
        return out
    }

    /// A payload sealed chunk by chunk with the flags a test chooses, for the shapes an honest
    /// encryptor never writes (an empty final chunk after others, two final chunks).
    static func craftPayload(fileKey: AgeFileKey, nonce: [UInt8], chunks: [(plaintext: [UInt8], final: Bool)]) throws -> [UInt8] {
        let cipher = try AgeSTREAM.cipher(fileKey: fileKey, nonce: nonce)
        var out = nonce
        for (counter, chunk) in chunks.enumerated() {
            var sealed = [UInt8](repeating: 0, count: chunk.plaintext.count + ChaCha20Poly1305.tagSize)
            try chunk.plaintext.withUnsafeBytes { p in
                try sealed.withUnsafeMutableBytes {
                    try cipher.seal(p, nonce: AgeSTREAM.chunkNonce(counter: UInt64(counter), final: chunk.final), into: $0)
                }
            }
            out += sealed
        }
        return out
    }

    /// Deterministic plaintext of `count` bytes.
    static func plaintext(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ ($0 >> 16)) }
    }
}
