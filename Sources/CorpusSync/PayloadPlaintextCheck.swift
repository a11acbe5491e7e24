import CorpusFormat
import Dispatch
import Foundation

/// An encrypted payload's plaintext checked while the payload downloads, so that an install
/// decrypts the payload once more, as it extracts, instead of in a second pass before that.
///
/// The downloader hands it every byte of the partial download in order from the first, whatever
/// the attempt (`DownloadTap`): the bytes already on disk when an attempt opens the partial (a
/// resume, from this source or the next), each byte appended, and a restart whenever the partial
/// is emptied (a 200 to a range request, a resumed file whose hash was wrong). The bytes go through
/// the streaming decryptor (`AgePayloadDecryptor`: each chunk authenticated before its plaintext
/// is hashed, which is all that is done with it) on a thread of its own, 1 MiB at a time, while the next ones arrive; at most
/// `slotCount` MiB wait, so the download never runs further ahead of the check than that.
///
/// A chunk that does not authenticate is remembered, not thrown at the downloader: the payload's
/// own hash decides first whether the source sent other bytes (the next source is tried) or the
/// key does not open the right ones (`verified(as:payload:)`).
final class PayloadPlaintextCheck: DownloadTap, @unchecked Sendable {
    // @unchecked: `digest` and `failure` are touched only on `queue`; `filling` only by the attempt
    // feeding the tap (the downloader runs one attempt at a time, and `verified` comes after the
    // last); the free slots are behind `lock`, their count in `freeSlots`.

    private final class Slot: @unchecked Sendable {
        // @unchecked: a slot belongs to the feeding thread while it fills, then to `queue` until
        // it is back among the free ones.
        let buffer: UnsafeMutableRawBufferPointer
        var count = 0
        init() { buffer = .allocate(byteCount: PayloadPlaintextCheck.slotSize, alignment: 64) }
        deinit { buffer.deallocate() }
    }

    static let slotSize = 1 << 20
    static let slotCount = 4

    private let fileKey: AgeFileKey
    private let queue = DispatchQueue(label: "corpus.payload-plaintext-check", qos: .userInitiated)
    // Starts at zero and is signalled up: libdispatch traps when a semaphore goes with a value
    // below its initial one.
    private let freeSlots = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var idle: [Slot]
    private var filling: Slot?
    private var digest: PlaintextDigest
    private var failure: AgeError?

    init(fileKey: AgeFileKey) {
        self.fileKey = fileKey
        digest = PlaintextDigest(fileKey: fileKey)
        idle = (0..<Self.slotCount).map { _ in Slot() }
        for _ in 0..<Self.slotCount { freeSlots.signal() }
    }

    func restart() {
        if let filling { giveBack(filling) }
        filling = nil
        // Runs after every slot handed over before it, so nothing of the old bytes is left.
        queue.sync {
            digest = PlaintextDigest(fileKey: fileKey)
            failure = nil
        }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            let slot = filling ?? takeSlot()
            let n = min(Self.slotSize - slot.count, bytes.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: slot.buffer[slot.count..<(slot.count + n)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)]))
            slot.count += n
            offset += n
            if slot.count == Self.slotSize {
                hand(slot)
                filling = nil
            } else {
                filling = slot
            }
        }
    }

    /// Once the download matched the payload's hash and size: the plaintext's SHA-256 and size,
    /// held to `plaintext` (the catalog's bundle or delta). `payload` names the file in errors.
    /// - Throws: `SyncError.decryption` for a chunk that did not authenticate or a payload that does
    ///   not end with its final chunk; `sizeMismatch` or `hashMismatch` for a plaintext that is not
    ///   `plaintext`.
    func verified(as plaintext: BundleRef, payload: String) throws -> (digest: SHA256Digest, size: Int64) {
        if let filling { hand(filling) }
        filling = nil
        let result: Result<(digest: SHA256Digest, size: Int64), AgeError> = queue.sync {
            if let failure = self.failure { return .failure(failure) }
            do { return .success(try self.digest.finalize()) } catch { return .failure(Self.ageError(error)) }
        }
        let (digest, size) = try result.mapError { SyncError.decryption(file: payload, cause: $0) }.get()
        guard size == plaintext.size else { throw SyncError.sizeMismatch(file: plaintext.path, expected: plaintext.size, actual: size) }
        guard digest == plaintext.digest else {
            throw SyncError.hashMismatch(file: plaintext.path, expected: plaintext.digest.hex, actual: digest.hex)
        }
        return (digest, size)
    }

    /// Decrypts and hashes a full slot on `queue`, then frees it; after a refusal nothing more is read.
    private func hand(_ slot: Slot) {
        queue.async { [self] in
            if failure == nil {
                do { try digest.update(UnsafeRawBufferPointer(rebasing: slot.buffer[0..<slot.count])) } catch { failure = Self.ageError(error) }
            }
            giveBack(slot)
        }
    }

    private func takeSlot() -> Slot {
        freeSlots.wait()
        let slot = lock.withLock { idle.removeLast() }
        slot.count = 0
        return slot
    }

    private func giveBack(_ slot: Slot) {
        lock.withLock { idle.append(slot) }
        freeSlots.signal()
    }

    /// The SHA-256 and size of a payload's plaintext, fed the payload in pieces of any size.
    private final class PlaintextDigest {
        private let decryptor: AgePayloadDecryptor
        private let digest = Digest(.sha256)
        private var size: Int64 = 0

        init(fileKey: AgeFileKey) { decryptor = AgePayloadDecryptor(fileKey: fileKey) }

        /// - Throws: `AgeError`; nothing more may be fed after one.
        func update(_ payload: UnsafeRawBufferPointer) throws { try decryptor.update(payload, sink: hash) }

        /// The payload ended, which must be with its final chunk (`AgeError` otherwise).
        func finalize() throws -> (digest: SHA256Digest, size: Int64) {
            try decryptor.finish(sink: hash)
            return (SHA256Digest(bytes: digest.finalize()), size)
        }

        private func hash(_ plaintext: UnsafeRawBufferPointer) {
            digest.update(plaintext)
            size += Int64(plaintext.count)
        }
    }

    /// `AgePayloadDecryptor` refuses with `AgeError` only.
    private static func ageError(_ error: any Error) -> AgeError {
        error as? AgeError ?? .crypto(operation: "decrypting the payload: \(error)")
    }
}
