/// One STREAM chunk's bytes gathered from pieces of any size, in one allocation reused for
/// every chunk (a gigabyte is 16 384 chunks): the pending input of `AgePayloadEncryptor` and
/// `AgePayloadDecryptor`, and the output each seals or opens into.
final class AgeChunkBuffer {
    let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 64)
    }

    deinit { storage.deallocate() }

    var isFull: Bool { count == capacity }
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }

    /// Copies as much of `source[offset...]` as fits and returns how many bytes it took.
    func fill(from source: UnsafeRawBufferPointer, at offset: Int) -> Int {
        let n = min(capacity - count, source.count - offset)
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<(count + n)])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + n)]))
        count += n
        return n
    }

    func removeAll() { count = 0 }

    /// The first `count` bytes as room to write into, for a chunk's sealed or opened form.
    func output(_ count: Int) -> UnsafeMutableRawBufferPointer {
        self.count = count
        return UnsafeMutableRawBufferPointer(rebasing: storage[0..<count])
    }
}

@available(*, unavailable) extension AgeChunkBuffer: Sendable {}
